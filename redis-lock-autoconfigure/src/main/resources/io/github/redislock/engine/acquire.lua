-- Grants an exclusive lock when it is free (no key, or a tombstone: lock-key.lua), with a fencing token greater than
-- every earlier grant's: server time in microseconds, and above the tombstone's token when there is one. Free and
-- never used for a while (the usual case of a lock nobody else wants): TIME, EXISTS and one SET.
-- Safe to run twice: Lettuce sends a command again after a reconnect when its answer was lost, so an attempt may
-- find the lock already granted to itself, which it reports as its grant, with the same token.
-- Never granted after its own release: an attempt may reach Redis after the release or give-back of its owner token
-- (sent again after a reconnect, or after a cluster redirection, when the caller gave up on it), and is then refused,
-- as nobody would hold or release that grant. The release leaves its tombstone or its mark (release.lua), and the
-- mark may outlive the lock key (the later grant that kept it expired; the give-back found another owner's grant),
-- so even the usual case asks for it: one EXISTS, which a grant nobody holds for a whole lease is worth.
-- Refused, it notes on the holder's key that a thread of another JVM waits (the flag 'c'), so that the holder's
-- release publishes and the holder's JVM yields the lock for a while; a thread of the holder's own JVM is left
-- unnoted, since the releasing thread wakes the waiters of its own JVM itself (release.lua says why no waiter is
-- left asleep).
-- KEYS[1]  the lock key
-- ARGV[1]  owner token of the caller
-- ARGV[2]  lease in milliseconds
-- Reply:   the token alone when granted a free key, the usual case (an array costs more to build and send);
--          {1, token} when granted otherwise; {0, pttl} when held by another, pttl being the holder's lease left in
--          milliseconds (-1 when the key has no expiry, which only a hand-made key has); {0, -1} when the caller's
--          owner token was released before (nobody awaits that reply)
local clock = redis.call('time')
local seconds, micros = clock[1], clock[2]
-- The token's digits in one concatenation, without string.format, which costs more than the rest of this script.
if #micros < 6 then
	micros = string.sub('00000' .. micros, -6)
end
local released = redis.call('exists', KEYS[1] .. ':released:' .. ARGV[1]) == 1
if not released and redis.call('set', KEYS[1], 'h|' .. ARGV[1] .. '|' .. seconds .. micros, 'NX', 'PX', ARGV[2]) then
	return tonumber(seconds) * 1000000 + tonumber(micros)
end
-- The functions of lock-key.lua go here (LockScripts.composedScript): past the usual case, which needs none of them,
-- since defining a function costs Redis on every run.
-- lock-key.lua
local token = tonumber(seconds) * 1000000 + tonumber(micros)
local granted = 'h|' .. ARGV[1] .. '|'
local value = redis.call('get', KEYS[1])
local state, owner, last, rest = read_lock_key(value)
if released or (state == 'r' and owner == ARGV[1]) then
	-- Its owner's release ran: neither granted nor flagged as a waiter, which it is not.
	return {0, -1}
end
if state == 'r' then
	last = tonumber(last)
	if last >= token then
		-- A server clock that stepped back, or a grant within the same microsecond: the fence decides.
		token = last + 1
	end
	-- The release before yielded to other JVMs: their threads wait for a release message, even unrefused.
	local flag = (string.sub(rest, -2) == '|y') and '|p' or ''
	redis.call('set', KEYS[1], granted .. string.format('%.0f', token) .. flag, 'PX', ARGV[2])
	keep_release_mark(KEYS[1], owner, rest)
	return {1, token}
end
if state == 'h' then
	if owner == ARGV[1] then
		return {1, tonumber(last)}
	end
	-- The instance id of the caller's JVM begins its owner token, up to the last ':' (Acquisition.OwnerTokens).
	local instance = string.match(ARGV[1], '^(.*:)')
	if rest ~= '|c' and string.sub(owner, 1, #instance) ~= instance then
		redis.call('set', KEYS[1], 'h|' .. owner .. '|' .. last .. '|c', 'KEEPTTL')
	end
end
return {0, redis.call('pttl', KEYS[1])}
