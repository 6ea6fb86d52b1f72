-- Releases the lock when the caller owns it, and tells waiters through the release channel.
-- Safe to run twice: a release leaves a short-lived mark of its owner, so that the same release run again (Lettuce
-- sends a command again after a reconnect when its answer was lost) reports the release, not a lost lock.
-- KEYS[1]  the lock key
-- KEYS[2]  the fence key
-- KEYS[3]  the contenders, as in acquire.lua
-- KEYS[4]  the release mark of the caller's owner token
-- ARGV[1]  owner token of the caller
-- ARGV[2]  the release channel
-- ARGV[3]  the last fencing token used in this JVM when the grant was handed between its threads, else 0
-- ARGV[4]  how long the fence key outlives a grant, in milliseconds
-- ARGV[5]  the command that publishes the release: 'spublish' (sharded, on a Redis 7 cluster) or 'publish'
-- ARGV[6]  instance id of the caller's JVM
-- ARGV[7]  how long the release mark lasts, in milliseconds: as long as the client may send the command again
-- Reply:   2 when released and a thread of another JVM was refused the lock since it was last released (it
--          waits), 1 when released otherwise or released before by this same release; 0 when the lock had expired
--          or belongs to another owner (it is left as it is)
if redis.call('get', KEYS[1]) ~= ARGV[1] then
	return redis.call('exists', KEYS[4])
end
redis.call('del', KEYS[1])
redis.call('set', KEYS[4], 1, 'PX', ARGV[7])
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
