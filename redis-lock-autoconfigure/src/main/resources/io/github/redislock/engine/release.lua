-- Releases the lock when the caller owns it, and tells waiters through the release channel.
-- KEYS[1]  the lock key
-- ARGV[1]  owner token of the caller
-- ARGV[2]  the release channel
-- Reply:   1 when released; 0 when the lock had expired or belongs to another owner (it is left as it is)
if redis.call('get', KEYS[1]) == ARGV[1] then
	redis.call('del', KEYS[1])
	redis.call('publish', ARGV[2], '')
	return 1
end
return 0
