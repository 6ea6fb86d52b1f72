-- Adds to a counter, like INCRBY, when the caller's fencing token is not lower than the highest the counter has seen.
-- Safe to run twice, as every script: Lettuce sends a command again after a reconnect when its answer was lost. Each
-- call carries an id of its own, under which it records the counter's new value (KEYS[3]) for as long as the client
-- may send the call again; the same call run again finds that record, adds nothing and replies the same value, even
-- when a holder with a higher token wrote since (the call was not refused: it ran before).
-- KEYS[1]  the resource: the counter's key
-- KEYS[2]  its fence key, in the same slot, which keeps the highest token seen
-- KEYS[3]  the call's record: the fence key, ':incr:' and the call's id, in the same slot
-- ARGV[1]  the caller's fencing token
-- ARGV[2]  the amount to add, negative to subtract
-- ARGV[3]  how long the call's record lasts, in milliseconds: the command timeout plus a second
-- Reply:   {1, the counter's new value} when written, or written before by this same call; {0, the highest token
--          seen} when refused, and nothing was written. An error when the value is not an integer or would overflow,
--          and nothing was written.
local done = redis.call('get', KEYS[3])
if done then
	return {1, tonumber(done)}
end
local highest = stale_against(KEYS[2], ARGV[1])
if highest then
	return {0, highest}
end
local value = redis.call('incrby', KEYS[1], ARGV[2])
record_token(KEYS[2], KEYS[1], ARGV[1])
-- Written in full: a number passed as it is would be written with 14 digits.
redis.call('set', KEYS[3], string.format('%.0f', value), 'PX', ARGV[3])
return {1, value}
