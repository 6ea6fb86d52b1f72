-- Grants one of a limited number of permits of a name: at most ARGV[2] holders at once, each with a lease of its own.
-- The limit comes with each request, so that JVMs that disagree (a limit changed in one of them first) each admit
-- while fewer than their own limit hold: never more than the largest of their limits hold at once.
-- Safe to run twice: an attempt that finds itself among the holders (its command sent again after a reconnect)
-- reports the grant again with a new token, which is as good since nobody saw the first. One that reaches Redis after
-- the release or give-back of its owner token finds the owner's release mark (permit-release.lua) and is refused, as
-- in rw-acquire.lua: nobody would hold or release that grant.
-- A refusal notes, per JVM, until when one of its threads may still wait (a field '~<instance>'), so that a release
-- publishes only while someone of another JVM may wait for it; a grant that leaves permits free while someone waits
-- (holders whose leases ended, a limit raised) publishes too, so that one more waiter per JVM tries: waiters never
-- poll, and none sleeps past a free permit longer than until the soonest lease it was refused by ends.
-- KEYS[1]  the holders: a hash of, per holder, its owner token and lease end in server milliseconds, and, per JVM
--          with waiters, '~' and its instance id and until when they may wait; the key expires with the last lease
-- KEYS[2]  the fence key, as in fair-acquire.lua
-- ARGV[1]  owner token of the caller, '<instance>:<sequence>'
-- ARGV[2]  the limit: how many may hold a permit at once
-- ARGV[3]  lease in milliseconds
-- ARGV[4]  how long the fence key outlives a grant, in milliseconds
-- ARGV[5]  how long the caller may still wait, in milliseconds; 0 for an attempt that does not wait
-- ARGV[6]  the release channel
-- ARGV[7]  the command that publishes: 'spublish' or 'publish'
-- Reply:   {1, token} when granted; {0, ms} when not, ms being how long the caller may sleep at most: until the
--          soonest lease of a holder ends (-1 when the caller's owner token was released before: nobody awaits that
--          reply)
local clock = redis.call('time')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local live, latest, soonest, waiting, mine = 0, 0, nil, false, false
local entries = redis.call('hgetall', KEYS[1])
for i = 1, #entries, 2 do
	local field, ends = entries[i], tonumber(entries[i + 1])
	if ends <= now then
		-- A holder that died without releasing, or a JVM whose waiters are gone: over.
		redis.call('hdel', KEYS[1], field)
	elseif string.sub(field, 1, 1) == '~' then
		waiting = true
	else
		live = live + 1
		latest = math.max(latest, ends)
		soonest = math.min(soonest or ends, ends)
		mine = mine or field == ARGV[1]
	end
end
if mine then
	return {1, next_fencing_token(KEYS[2], ARGV[4], clock)}
end
-- Asked only before a grant, as a refusal grants nothing: the fence key is <name>:fence (LockScripts.fenceKey), the
-- mark <name>:released:<owner> (LockScripts.releasedKey).
if live < tonumber(ARGV[2])
		and redis.call('exists', string.sub(KEYS[2], 1, -7) .. ':released:' .. ARGV[1]) == 1 then
	return {0, -1}
end
if live < tonumber(ARGV[2]) then
	local ends = now + tonumber(ARGV[3])
	redis.call('hset', KEYS[1], ARGV[1], ends)
	redis.call('pexpireat', KEYS[1], math.max(latest, ends))
	if waiting and live + 1 < tonumber(ARGV[2]) then
		-- Permits are left and someone waits: one waiter per JVM tries, each grant with room left wakes the next.
		redis.call(ARGV[7], ARGV[6], '+')
	end
	return {1, next_fencing_token(KEYS[2], ARGV[4], clock)}
end
local left = soonest - now
local wait = tonumber(ARGV[5])
if wait > 0 then
	-- Until the caller asks again at the latest (when the soonest lease ends), with a margin for the timers of both.
	local instance = string.match(ARGV[1], '^(.*):[^:]*$') or ARGV[1]
	local until_ = now + math.min(wait, left) + 2000
	local noted = tonumber(redis.call('hget', KEYS[1], '~' .. instance))
	if not noted or noted < until_ then
		redis.call('hset', KEYS[1], '~' .. instance, until_)
	end
end
return {0, left}
