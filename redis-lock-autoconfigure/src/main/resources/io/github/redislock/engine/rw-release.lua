-- Releases the caller's side of a read/write lock when it still holds it, and wakes every waiter when others
-- may now get in. Safe to run twice, as fair-release.lua: the same release run again reports the release, and one
-- that finds nothing of the caller's leaves a mark of 0, so that the acquisition it gives back, should it reach Redis
-- after this, is refused (rw-acquire.lua), and the same release run again still reports the loss.
-- KEYS[1]  the holders, as in rw-acquire.lua
-- KEYS[2]  the release mark of the caller's owner token, as in fair-release.lua: 1 when it released its side, 0 when
--          its release found nothing of it
-- ARGV[1]  owner token of the caller
-- ARGV[2]  'read' or 'write': the side the caller releases
-- ARGV[3]  the release channel
-- ARGV[4]  the command that publishes: 'spublish' or 'publish'
-- ARGV[5]  how long the release mark lasts, in milliseconds
-- Reply:   1 + the number of subscribers the message reached (1 when none was sent, or when released before by
--          this same release); 0 when the caller's lease had ended or it held nothing
local clock = redis.call('time')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local ends = tonumber(redis.call('hget', KEYS[1], ARGV[1]))
redis.call('hdel', KEYS[1], ARGV[1])
if not ends or ends <= now then
	local known = redis.call('get', KEYS[2])
	if known then
		return tonumber(known)
	end
	redis.call('set', KEYS[2], 0, 'PX', ARGV[5])
	return 0
end
redis.call('set', KEYS[2], 1, 'PX', ARGV[5])
local live, latest = 0, 0
local entries = redis.call('hgetall', KEYS[1])
for i = 1, #entries, 2 do
	if entries[i] ~= 'mode' then
		local holderEnds = tonumber(entries[i + 1])
		if holderEnds > now then
			live = live + 1
			latest = math.max(latest, holderEnds)
		end
	end
end
if live == 0 then
	redis.call('del', KEYS[1])
else
	if ARGV[2] == 'write' then
		-- Who is left holds read locks the writer took before it left.
		redis.call('hset', KEYS[1], 'mode', 'read')
	end
	redis.call('pexpireat', KEYS[1], latest)
end
if live == 0 or ARGV[2] == 'write' then
	-- '*' wakes every waiter: several readers may now get in together.
	return 1 + redis.call(ARGV[4], ARGV[3], '*' .. ARGV[1])
end
return 1
