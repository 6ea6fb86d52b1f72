-- Extends the lease of a lock the caller still holds: run by the watchdog, and by LockHandle.extend with the lease
-- it asks for. For the exclusive kind, whose key holds 'h|<owner>|…' while held (lock-key.lua), and the fair kind,
-- whose key holds the bare owner token.
-- KEYS[1]  the lock key
-- ARGV[1]  owner token of the caller
-- ARGV[2]  new lease in milliseconds
-- Reply:   1 when renewed; 0 when the lock had expired, was released, or belongs to another owner (the lock is lost)
local value = redis.call('get', KEYS[1])
if value and (value == ARGV[1] or string.sub(value, 1, #ARGV[1] + 3) == 'h|' .. ARGV[1] .. '|') then
	redis.call('pexpire', KEYS[1], ARGV[2])
	return 1
end
return 0
