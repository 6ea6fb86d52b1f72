-- Sets fields of a hash, like HSET, when the caller's fencing token is not lower than the highest the hash has seen.
-- KEYS[1]  the resource: the hash's key
-- KEYS[2]  its fence key, in the same slot, which keeps the highest token seen
-- ARGV[1]  the caller's fencing token
-- ARGV[2…] field, value, field, value, …
-- Reply:   {1, the number of fields added} when written; {0, the highest token seen} when refused, and nothing was
--          written
local highest = stale_against(KEYS[2], ARGV[1])
if highest then
	return {0, highest}
end
local added = redis.call('hset', KEYS[1], unpack(ARGV, 2))
record_token(KEYS[2], KEYS[1], ARGV[1])
return {1, added}
