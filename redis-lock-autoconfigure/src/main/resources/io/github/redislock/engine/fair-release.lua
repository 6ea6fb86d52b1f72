-- Releases a fair lock when the caller owns it, and wakes the head of its queue only; with nobody in the queue, one
-- waiter per JVM of the exclusive lock of the same name, which shares the key (the message is the caller's owner
-- token, as an exclusive release's), or it would sleep until the lease it was refused by would have ended.
-- Safe to run twice: a release leaves a short-lived mark of its owner, so that the same release run again (Lettuce
-- sends a command again after a reconnect when its answer was lost) reports the release, not a lost lock. A release
-- or give-back that finds the lock not the caller's leaves a mark of 0, so that the acquisition it gives back, should
-- it reach Redis after this, is refused (fair-acquire.lua), and the same release run again still reports the loss.
-- KEYS[1]  the lock key
-- KEYS[2]  the queue, as in fair-acquire.lua
-- KEYS[3]  the deadlines, as in fair-acquire.lua
-- KEYS[4]  the release mark of the caller's owner token (LockScripts.releasedKey): 1 when it released the lock, 0 when
--          its release found the lock not its own
-- ARGV[1]  owner token of the caller
-- ARGV[2]  the release channel
-- ARGV[3]  the command that publishes: 'spublish' or 'publish'
-- ARGV[4]  how long the release mark lasts, in milliseconds
-- Reply:   1 + the number of subscribers the wake-up message reached when released (1 when released before by
--          this same release, or when nobody subscribes); 0 when the lock had expired or belongs to another owner (it is left as it is)
if redis.call('get', KEYS[1]) ~= ARGV[1] then
	local known = redis.call('get', KEYS[4])
	if known then
		return tonumber(known)
	end
	redis.call('set', KEYS[4], 0, 'PX', ARGV[4])
	return 0
end
redis.call('del', KEYS[1])
redis.call('set', KEYS[4], 1, 'PX', ARGV[4])
local clock = redis.call('time')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local head = redis.call('lindex', KEYS[2], 0)
while head do
	local deadline = tonumber(redis.call('zscore', KEYS[3], head))
	if deadline and deadline > now then
		-- '>' names the one waiter to wake; every other waiter sleeps on.
		return 1 + redis.call(ARGV[3], ARGV[2], '>' .. head)
	end
	redis.call('lpop', KEYS[2])
	redis.call('zrem', KEYS[3], head)
	head = redis.call('lindex', KEYS[2], 0)
end
return 1 + redis.call(ARGV[3], ARGV[2], ARGV[1])
