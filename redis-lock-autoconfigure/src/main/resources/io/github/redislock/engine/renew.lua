-- Extends the lease of a lock the caller still owns: run by the watchdog, and by LockHandle.extend with the lease
-- it asks for.
-- KEYS[1]  the lock key
-- ARGV[1]  owner token of the caller
-- ARGV[2]  new lease in milliseconds
-- Reply:   1 when renewed; 0 when the lock had expired or belongs to another owner (the lock is lost)
if redis.call('get', KEYS[1]) == ARGV[1] then
	redis.call('pexpire', KEYS[1], ARGV[2])
	return 1
end
return 0
