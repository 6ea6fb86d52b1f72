-- Extends the leases of many locks at once, each exactly as renew.lua or rw-renew.lua would on its own: run by the
-- watchdog, one call for up to a chunk of leases whose keys share a cluster slot (any keys on a single server).
-- KEYS[i]        the lock key of lease i: its lock key, or for a read/write lock its holders (rw-acquire.lua)
-- ARGV[3i-2]     'k' when the key holds the owner token (exclusive and fair: renew.lua), 'h' when it holds the
--                holders of a read/write lock (rw-renew.lua)
-- ARGV[3i-1]     owner token of lease i
-- ARGV[3i]       new lease of lease i in milliseconds
-- Reply:         one number per key, in order: 1 when renewed; 0 when that lock is lost to its owner (expired, released
--                or another owner's). Renewing twice is harmless, as for each script alone: a replay sets the same
--                lease again, from a later time. A key of the wrong type (something else written there) answers 0 for
--                that key alone, where the script of one lease fails: it must not fail the other leases of the call.
local now
local result = {}
for i = 1, #KEYS do
	local key, owner, lease = KEYS[i], ARGV[3 * i - 1], ARGV[3 * i]
	local renewed = 0
	if ARGV[3 * i - 2] == 'h' then
		if not now then
			local clock = redis.call('time')
			now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
		end
		local ends = redis.pcall('hget', key, owner)
		ends = (type(ends) == 'string') and tonumber(ends) or nil
		if ends and ends > now then
			redis.call('hset', key, owner, now + tonumber(lease))
			if redis.call('pttl', key) < tonumber(lease) then
				redis.call('pexpire', key, lease)
			end
			renewed = 1
		end
	else
		local value = redis.pcall('get', key)
		if type(value) == 'string' and (value == owner or string.sub(value, 1, #owner + 3) == 'h|' .. owner .. '|') then
			redis.call('pexpire', key, lease)
			renewed = 1
		end
	end
	result[i] = renewed
end
return result
