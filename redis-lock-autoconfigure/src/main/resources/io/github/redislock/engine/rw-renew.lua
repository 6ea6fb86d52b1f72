-- Extends the lease of the caller's side of a read/write lock while it still holds it.
-- Run by the watchdog, and by LockHandle.extend with the lease it asks for, which may be shorter.
-- KEYS[1]  the holders, as in rw-acquire.lua
-- ARGV[1]  owner token of the caller
-- ARGV[2]  new lease in milliseconds
-- Reply:   1 when renewed; 0 when the caller's lease had ended or it held nothing (the lock is lost)
local clock = redis.call('time')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local ends = tonumber(redis.call('hget', KEYS[1], ARGV[1]))
if not ends or ends <= now then
	return 0
end
redis.call('hset', KEYS[1], ARGV[1], now + tonumber(ARGV[2]))
if redis.call('pttl', KEYS[1]) < tonumber(ARGV[2]) then
	redis.call('pexpire', KEYS[1], ARGV[2])
end
return 1
