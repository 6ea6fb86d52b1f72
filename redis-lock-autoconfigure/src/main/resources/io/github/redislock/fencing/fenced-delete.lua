-- Deletes a resource, like DEL, when the caller's fencing token is not lower than the highest it has seen. The fence
-- key outlives the resource for a while, so that a stale holder cannot write the deleted resource back at once.
-- KEYS[1]  the resource's key
-- KEYS[2]  its fence key, in the same slot, which keeps the highest token seen
-- ARGV[1]  the caller's fencing token
-- ARGV[2]  how long the fence key outlives the resource, in milliseconds
-- Reply:   {1, 1 when the resource existed, else 0}; {0, the highest token seen} when refused, and nothing was
--          deleted
local highest = stale_against(KEYS[2], ARGV[1])
if highest then
	return {0, highest}
end
local deleted = redis.call('del', KEYS[1])
redis.call('set', KEYS[2], ARGV[1], 'PX', ARGV[2])
return {1, deleted}
