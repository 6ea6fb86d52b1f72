-- Adds to a counter, like INCRBY, when the caller's fencing token is not lower than the highest the counter has seen.
-- KEYS[1]  the resource: the counter's key
-- KEYS[2]  its fence key, in the same slot, which keeps the highest token seen
-- ARGV[1]  the caller's fencing token
-- ARGV[2]  the amount to add, negative to subtract
-- Reply:   {1, the counter's new value} when written; {0, the highest token seen} when refused, and nothing was
--          written. An error when the value is not an integer or would overflow, and nothing was written.
local highest = stale_against(KEYS[2], ARGV[1])
if highest then
	return {0, highest}
end
local value = redis.call('incrby', KEYS[1], ARGV[2])
record_token(KEYS[2], KEYS[1], ARGV[1])
return {1, value}
