-- Takes a waiter that gives up out of a fair lock's queue; when it was next in line and the lock is free,
-- wakes the waiter after it.
-- KEYS[1]  the lock key; a released exclusive lock's tombstone (lock-key.lua) counts as free
-- KEYS[2]  the queue, as in fair-acquire.lua
-- KEYS[3]  the deadlines, as in fair-acquire.lua
-- ARGV[1]  owner token of the waiter
-- ARGV[2]  the release channel
-- ARGV[3]  the command that publishes: 'spublish' or 'publish'
-- Reply:   1 when a waiter was woken, else 0
local wasHead = redis.call('lindex', KEYS[2], 0) == ARGV[1]
redis.call('lrem', KEYS[2], 1, ARGV[1])
redis.call('zrem', KEYS[3], ARGV[1])
if wasHead and string.sub(redis.call('get', KEYS[1]) or 'r|', 1, 2) == 'r|' then
	local next = redis.call('lindex', KEYS[2], 0)
	if next then
		redis.call(ARGV[3], ARGV[2], '>' .. next)
		return 1
	end
end
return 0
