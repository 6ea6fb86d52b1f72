-- Put in front of each acquire script when the engine loads it (Redis scripts cannot include one another).

-- Returns a fencing token for a new grant of the lock, greater than every earlier grant's, and records it.
-- Server time in microseconds keeps tokens increasing after the fence key expired; the fence key covers grants within
-- one microsecond and a server clock that steps back within its lifetime.
-- fence_key         the lock's fence key
-- retention_millis  how long the fence key outlives the grant
-- clock             the reply of TIME, when the script already has it
local function next_fencing_token(fence_key, retention_millis, clock)
	clock = clock or redis.call('time')
	local token = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
	-- One command in the usual case: write the token and read the one it replaces.
	local last = tonumber(redis.call('set', fence_key, string.format('%.0f', token), 'PX', retention_millis, 'GET'))
	if last and last >= token then
		token = last + 1
		redis.call('set', fence_key, string.format('%.0f', token), 'PX', retention_millis)
	end
	return token
end


-- Returns the fencing token of the caller's grant when an acquire script runs again after granting (a replayed
-- command): the fence key holds it, since no other grant of the lock can follow while the caller holds it. A fence
-- key that expired meanwhile gets a new token, which is as good: nobody saw the first one, whose answer was lost.
local function granted_fencing_token(fence_key, retention_millis, clock)
	local last = tonumber(redis.call('get', fence_key))
	if last then
		return last
	end
	return next_fencing_token(fence_key, retention_millis, clock)
end

