-- Sets a string value, like SET, when the caller's fencing token is not lower than the highest the resource has seen.
-- KEYS[1]  the resource: the value's key
-- KEYS[2]  its fence key, in the same slot, which keeps the highest token seen
-- ARGV[1]  the caller's fencing token
-- ARGV[2]  the value
-- ARGV[3]  the value's time to live in milliseconds, or '0' for none (the fence key gets the same)
-- Reply:   {1, 1} when written; {0, the highest token seen} when refused, and nothing was written
local highest = stale_against(KEYS[2], ARGV[1])
if highest then
	return {0, highest}
end
if ARGV[3] == '0' then
	redis.call('set', KEYS[1], ARGV[2])
else
	redis.call('set', KEYS[1], ARGV[2], 'PX', ARGV[3])
end
record_token(KEYS[2], KEYS[1], ARGV[1])
return {1, 1}
