-- Grants the lock when it is free, with a fencing token greater than every earlier grant.
-- KEYS[1]  the lock key; its value is the owner token of the holder
-- KEYS[2]  the fence key; the last fencing token granted for this lock, kept for a while after release
-- KEYS[3]  the contenders: instance ids of the JVMs whose threads were refused since the last release
-- ARGV[1]  owner token of the caller
-- ARGV[2]  lease in milliseconds
-- ARGV[3]  how long the fence key outlives a grant, in milliseconds
-- ARGV[4]  instance id of the caller's JVM
-- Reply:   {1, token} when granted; {0, pttl} when held by another, pttl being the holder's lease left in
--          milliseconds (-1 when the key has no expiry, which only a hand-made key has)
if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
	-- Server time in microseconds keeps tokens increasing after the fence key expired; the fence key covers
	-- grants within one microsecond and a clock that steps back within its lifetime.
	local now = redis.call('time')
	local token = tonumber(now[1]) * 1000000 + tonumber(now[2])
	-- One command in the usual case: write the token and read the one it replaces.
	local last = tonumber(redis.call('set', KEYS[2], string.format('%.0f', token), 'PX', ARGV[3], 'GET'))
	if last and last >= token then
		token = last + 1
		redis.call('set', KEYS[2], string.format('%.0f', token), 'PX', ARGV[3])
	end
	return {1, token}
end
-- Refused: note the JVM, so that the holder's JVM, releasing, knows whether another JVM waits.
local left = redis.call('pttl', KEYS[1])
redis.call('sadd', KEYS[3], ARGV[4])
redis.call('pexpire', KEYS[3], (left > 0) and left or 1000)
return {0, left}
