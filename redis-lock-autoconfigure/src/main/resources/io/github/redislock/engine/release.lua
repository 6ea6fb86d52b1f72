-- Releases the lock when the caller owns it, and tells waiters through the release channel.
-- KEYS[1]  the lock key
-- KEYS[2]  the fence key
-- KEYS[3]  the contenders, as in acquire.lua
-- ARGV[1]  owner token of the caller
-- ARGV[2]  the release channel
-- ARGV[3]  the last fencing token used in this JVM when the grant was handed between its threads, else 0
-- ARGV[4]  how long the fence key outlives a grant, in milliseconds
-- ARGV[5]  the command that publishes the release: 'spublish' (sharded, on a Redis 7 cluster) or 'publish'
-- ARGV[6]  instance id of the caller's JVM
-- Reply:   2 when released and a thread of another JVM was refused the lock since it was last released (it
--          waits), 1 when released otherwise; 0 when the lock had expired or belongs to another owner (it is
--          left as it is)
if redis.call('get', KEYS[1]) == ARGV[1] then
	redis.call('del', KEYS[1])
	if ARGV[3] ~= '0' then
		local fence = tonumber(redis.call('get', KEYS[2]))
		if not fence or fence < tonumber(ARGV[3]) then
			redis.call('set', KEYS[2], ARGV[3], 'PX', ARGV[4])
		end
	end
	local elsewhere = 0
	local contenders = redis.call('smembers', KEYS[3])
	if #contenders > 0 then
		for _, instance in ipairs(contenders) do
			if instance ~= ARGV[6] then
				elsewhere = 1
			end
		end
		redis.call('del', KEYS[3])
	end
	-- The message names the owner, so that its own JVM can tell its releases from others'.
	redis.call(ARGV[5], ARGV[2], ARGV[1])
	return 1 + elsewhere
end
return 0
