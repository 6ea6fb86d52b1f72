-- Grants a fair lock to the head of its queue, queueing the caller when it must wait.
-- Safe to run twice: an attempt that finds the lock granted to itself (its command sent again after a reconnect)
-- reports that grant, with the same token, and never queues behind it. One that reaches Redis after the release or
-- give-back of its owner token (sent again after a reconnect or a cluster redirection, when the caller gave up on
-- it) finds the owner's release mark (fair-release.lua, or release.lua's when an exclusive grant replaced it) and is
-- refused, unqueued: nobody would hold or release that grant.
-- KEYS[1]  the lock key; its value is the owner token of the holder, or what an exclusive lock of the same name keeps
--          there (lock-key.lua), whose tombstone counts as free
-- KEYS[2]  the fence key: the last fencing token granted, kept for a while after the grant (fencing-token.lua)
-- KEYS[3]  the queue: owner tokens of the waiters, in arrival order
-- KEYS[4]  the deadlines: a sorted set of each queued owner's deadline, in server milliseconds
-- ARGV[1]  owner token of the caller
-- ARGV[2]  lease in milliseconds
-- ARGV[3]  how long the fence key outlives a grant, in milliseconds
-- ARGV[4]  how long the caller's queue entry lasts unless it tries again, in milliseconds; 0 queues nothing
-- Reply:   {1, token} when granted; {0, ms} when not, ms being how long the caller may sleep at most: until
--          the holder's lease or the head's queue entry ends (-1 when neither is known, or when the caller's owner
--          token was released before: nobody awaits that reply)
local holder = redis.call('get', KEYS[1])
if holder == ARGV[1] then
	return {1, granted_fencing_token(KEYS[2], ARGV[3])}
end
if redis.call('exists', KEYS[1] .. ':released:' .. ARGV[1]) == 1 then
	return {0, -1}
end
-- An exclusive lock of the same name was released: free, with its fence and its owner's release mark to keep.
local released, releasedOwner, releasedToken, releasedRest = read_lock_key(holder)
if released == 'r' then
	holder = nil
end
local clock = redis.call('time')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
-- Entries past their deadline belong to waiters that died or gave up: they must not block the queue.
local head = redis.call('lindex', KEYS[3], 0)
while head do
	local deadline = tonumber(redis.call('zscore', KEYS[4], head))
	if deadline and deadline > now then
		break
	end
	redis.call('lpop', KEYS[3])
	redis.call('zrem', KEYS[4], head)
	head = redis.call('lindex', KEYS[3], 0)
end
if not holder and (not head or head == ARGV[1]) then
	if head then
		redis.call('lpop', KEYS[3])
		redis.call('zrem', KEYS[4], head)
	end
	redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
	local token = next_fencing_token(KEYS[2], ARGV[3], clock)
	if released == 'r' then
		keep_release_mark(KEYS[1], releasedOwner, releasedRest)
		if token <= tonumber(releasedToken) then
			token = tonumber(releasedToken) + 1
			redis.call('set', KEYS[2], string.format('%.0f', token), 'PX', ARGV[3])
		end
	end
	return {1, token}
end
local wait = tonumber(ARGV[4])
if wait > 0 then
	if not redis.call('zscore', KEYS[4], ARGV[1]) then
		redis.call('rpush', KEYS[3], ARGV[1])
	end
	redis.call('zadd', KEYS[4], now + wait, ARGV[1])
	-- The queue lives as long as its last entry, so an abandoned queue does not stay behind.
	for i = 3, 4 do
		if redis.call('pttl', KEYS[i]) < wait then
			redis.call('pexpire', KEYS[i], wait)
		end
	end
	if not head then
		head = ARGV[1]
	end
end
local left = holder and redis.call('pttl', KEYS[1]) or -2
if head and head ~= ARGV[1] then
	local headLeft = tonumber(redis.call('zscore', KEYS[4], head)) - now
	if left < 0 or headLeft < left then
		left = headLeft
	end
end
return {0, left}
