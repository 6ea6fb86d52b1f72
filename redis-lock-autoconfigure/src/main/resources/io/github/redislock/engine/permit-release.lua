-- Gives back the caller's permit when it still holds it, deleting the key with the last holder, and, when someone of
-- another JVM may wait, publishes one wake-up: each JVM that hears it wakes one waiter, the releasing JVM its own (its releasing thread does). Safe to run
-- twice, as rw-release.lua: the same release run again reports the release, and one that finds nothing of the caller's
-- leaves a mark of 0, so that the acquisition it gives back, should it reach Redis after this, is refused
-- (permit-acquire.lua), and the same release run again still reports the loss.
-- KEYS[1]  the holders, as in permit-acquire.lua
-- KEYS[2]  the release mark of the caller's owner token, as in fair-release.lua
-- ARGV[1]  owner token of the caller
-- ARGV[2]  the release channel
-- ARGV[3]  the command that publishes: 'spublish' or 'publish'
-- ARGV[4]  how long the release mark lasts, in milliseconds
-- Reply:   1 + the number of subscribers the message reached (1 when none was sent, or when released before by this
--          same release); 0 when the caller's lease had ended or it held nothing
local clock = redis.call('time')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local ends = tonumber(redis.call('hget', KEYS[1], ARGV[1]))
if not ends or ends <= now then
	redis.call('hdel', KEYS[1], ARGV[1])
	local known = redis.call('get', KEYS[2])
	if known then
		return tonumber(known)
	end
	redis.call('set', KEYS[2], 0, 'PX', ARGV[4])
	return 0
end
redis.call('hdel', KEYS[1], ARGV[1])
redis.call('set', KEYS[2], 1, 'PX', ARGV[4])
local own = '~' .. (string.match(ARGV[1], '^(.*):[^:]*$') or ARGV[1])
local others, live = false, false
local entries = redis.call('hgetall', KEYS[1])
for i = 1, #entries, 2 do
	local field, ends = entries[i], tonumber(entries[i + 1])
	if ends > now then
		if string.sub(field, 1, 1) ~= '~' then
			live = true
		elseif field ~= own then
			others = true
		end
	end
end
if not live then
	-- Nobody holds a permit: the waiting JVMs' notes go too, this release wakes them.
	redis.call('del', KEYS[1])
end
if not others then
	return 1
end
-- The message names the owner, so that its own JVM, whose releasing thread wakes a waiter there, can tell it.
return 1 + redis.call(ARGV[3], ARGV[2], '+' .. ARGV[1])
