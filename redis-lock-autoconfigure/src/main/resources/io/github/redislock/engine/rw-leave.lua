-- Withdraws the intent of a writer that gives up waiting, and wakes the readers it kept out.
-- KEYS[1]  the writer intent, as in rw-acquire.lua
-- ARGV[1]  owner token of the writer
-- ARGV[2]  the release channel
-- ARGV[3]  the command that publishes: 'spublish' or 'publish'
-- Reply:   1 when the intent was the writer's, else 0
if redis.call('get', KEYS[1]) == ARGV[1] then
	redis.call('del', KEYS[1])
	redis.call(ARGV[3], ARGV[2], '*' .. ARGV[1])
	return 1
end
return 0
