-- Extends the leases of locks their owners still hold, a batch of leases of any kind, each checked on its own: run by
-- the watchdog, one call for up to a chunk of leases whose keys share a cluster slot (any keys on a single server);
-- by LockHandle.extend, a batch of one with the lease it asks for; and by a reentry that asks whether a lease whose
-- expiry this JVM believes passed is still held, a batch of one.
-- Safe to run twice: a replay sets the same lease again, from a later time.
-- KEYS[i]     the key of lease i: the lock key of an exclusive lock ('h|<owner>|…' while held, lock-key.lua) or of a
--             fair one (the bare owner token, fair-acquire.lua); for a side of a read/write lock, its holders
--             (rw-acquire.lua)
-- ARGV[3i-2]  'k' when that key holds the owner token (exclusive and fair), 'h' when it holds the holders
-- ARGV[3i-1]  owner token of lease i
-- ARGV[3i]    new lease of lease i in milliseconds
-- Reply:      per key, in order, 1 when renewed; 0 when that lock is lost to its owner: expired, released, another
--             owner's, or a key of another type written there, which loses that lease alone, never the others of the
--             batch. A list; for a batch of one the number alone, which spares Redis building a list (a lone
--             renewal answered with a list of one cost Redis 15 to 20% more, measured on Redis 7.0).
local count = #KEYS
local renewed = (count > 1) and {} or nil
local now, result
for i = 1, count do
	local key, owner, lease = KEYS[i], ARGV[3 * i - 1], ARGV[3 * i]
	result = 0
	if ARGV[3 * i - 2] == 'h' then
		if not now then
			local clock = redis.call('time')
			now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
		end
		local ends = redis.pcall('hget', key, owner)
		ends = (type(ends) == 'string') and tonumber(ends) or nil
		if ends and ends > now then
			redis.call('hset', key, owner, now + tonumber(lease))
			-- Never shortened: the other readers' leases run on.
			if redis.call('pttl', key) < tonumber(lease) then
				redis.call('pexpire', key, lease)
			end
			result = 1
		end
	else
		local value = redis.pcall('get', key)
		if type(value) == 'string' and (value == owner or string.sub(value, 1, #owner + 3) == 'h|' .. owner .. '|') then
			redis.call('pexpire', key, lease)
			result = 1
		end
	end
	if renewed then
		renewed[i] = result
	end
end
return renewed or result
