-- Tells whether an exclusive lock is still held as its grant wrote it, and whether a thread of another JVM waits for
-- it, with the server's clock: the question a JVM asks before it passes a renewed grant from one of its threads to the
-- next, and that a holder which passed it on waits for (HandOver). Changes nothing, so it is safe to run twice.
-- KEYS[1]  the lock key
-- ARGV[1]  the lock key's value as the grant wrote it, 'h|<owner>|<token>'
-- ARGV[2]  the grant's owner token
-- Reply:   {state, seconds, microseconds}: the state 1 when held as granted and nobody else waits, 2 when held as
--          granted and flagged ('|c': a thread of another JVM was refused it; '|p': the JVM that yielded it waits for
--          its release), 3 when its owner released it (its tombstone, or the release mark a later grant keeps, as in
--          release.lua; not the mark 0 of a release that found the lock gone): held until then, 0 when it is gone otherwise (it expired, Redis lost it, or another owner
--          holds it after it lapsed); then the server's TIME, which bounds the fencing tokens the JVM may give its
--          threads under this grant
local clock = redis.call('time')
local value = redis.call('get', KEYS[1])
local state = 0
if value == ARGV[1] then
	state = 1
elseif value and string.sub(value, 1, #ARGV[1] + 1) == ARGV[1] .. '|' then
	state = 2
elseif (value and string.sub(value, 1, #ARGV[2] + 3) == 'r|' .. ARGV[2] .. '|')
		or redis.call('get', KEYS[1] .. ':released:' .. ARGV[2]) == '1' then
	state = 3
end
return {state, tonumber(clock[1]), tonumber(clock[2])}
