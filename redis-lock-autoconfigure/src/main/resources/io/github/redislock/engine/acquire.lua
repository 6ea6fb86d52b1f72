-- Grants the lock when it is free, with a fencing token greater than every earlier grant (fencing-token.lua).
-- Safe to run twice: Lettuce sends a command again after a reconnect when its answer was lost, so an attempt may
-- find the lock already granted to itself, which it reports as its grant, with the same token.
-- KEYS[1]  the lock key; its value is the owner token of the holder
-- KEYS[2]  the fence key; the last fencing token granted for this lock, kept for a while after release
-- KEYS[3]  the contenders: instance ids of the JVMs whose threads were refused since the last release
-- ARGV[1]  owner token of the caller
-- ARGV[2]  lease in milliseconds
-- ARGV[3]  how long the fence key outlives a grant, in milliseconds
-- ARGV[4]  instance id of the caller's JVM
-- Reply:   {1, token} when granted; {0, pttl} when held by another, pttl being the holder's lease left in
--          milliseconds (-1 when the key has no expiry, which only a hand-made key has)
if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
	return {1, next_fencing_token(KEYS[2], ARGV[3])}
end
if redis.call('get', KEYS[1]) == ARGV[1] then
	return {1, granted_fencing_token(KEYS[2], ARGV[3])}
end
-- Refused: note the JVM, so that the holder's JVM, releasing, knows whether another JVM waits.
local left = redis.call('pttl', KEYS[1])
redis.call('sadd', KEYS[3], ARGV[4])
redis.call('pexpire', KEYS[3], (left > 0) and left or 1000)
return {0, left}
