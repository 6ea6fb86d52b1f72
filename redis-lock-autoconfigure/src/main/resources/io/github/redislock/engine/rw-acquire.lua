-- Grants the read or the write side of a read/write lock.
-- Safe to run twice: an attempt that finds itself among the holders (its command sent again after a reconnect)
-- reports that grant and sets no writer intent. A writer gets the same token again; a reader, whose token the fence
-- key may no longer hold, a new one, which is as good since nobody saw the first. One that reaches Redis after the
-- release or give-back of its owner token (sent again after a reconnect or a cluster redirection, when the caller
-- gave up on it) finds the owner's release mark (rw-release.lua) and is refused, with no intent set: nobody would
-- hold or release that grant. The mark's key is the lock's, <name>:released:<owner>, named from the fence key.
-- KEYS[1]  the holders: a hash of 'mode' ('read' or 'write') and, per holder, its owner token and lease end
--          in server milliseconds; the key expires with the last lease
-- KEYS[2]  the writer intent: the owner token of a writer that waits, which keeps new readers out
-- KEYS[3]  the fence key, as in fair-acquire.lua
-- ARGV[1]  owner token of the caller
-- ARGV[2]  'read' or 'write'
-- ARGV[3]  lease in milliseconds
-- ARGV[4]  how long the fence key outlives a grant, in milliseconds
-- ARGV[5]  how long a writer's intent lasts unless it tries again, in milliseconds; 0 for none
-- ARGV[6]  owner token of the write lock the caller holds, which lets it take the read lock too; '' if none
-- Reply:   {1, token} when granted; {0, ms} when not, ms being how long the caller may sleep at most (-1
--          when unknown, or when the caller's owner token was released before: nobody awaits that reply)
local clock = redis.call('time')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local live, latest, mine = 0, 0, false
local entries = redis.call('hgetall', KEYS[1])
for i = 1, #entries, 2 do
	if entries[i] ~= 'mode' then
		local ends = tonumber(entries[i + 1])
		if ends <= now then
			-- A holder that died without releasing: its lease is over.
			redis.call('hdel', KEYS[1], entries[i])
		else
			live = live + 1
			latest = math.max(latest, ends)
			mine = mine or entries[i] == ARGV[1]
		end
	end
end
local reading = ARGV[2] == 'read'
if mine then
	if reading then
		return {1, next_fencing_token(KEYS[3], ARGV[4], clock)}
	end
	return {1, granted_fencing_token(KEYS[3], ARGV[4], clock)}
end
-- The fence key is <name>:fence (LockScripts.fenceKey), the mark <name>:released:<owner> (LockScripts.releasedKey).
if redis.call('exists', string.sub(KEYS[3], 1, -7) .. ':released:' .. ARGV[1]) == 1 then
	return {0, -1}
end
local intent = redis.call('get', KEYS[2])
local granted
if live == 0 then
	-- A free lock still goes to the waiting writer first.
	granted = not reading or not intent
	if granted then
		redis.call('hset', KEYS[1], 'mode', ARGV[2])
	end
elseif reading and redis.call('hget', KEYS[1], 'mode') == 'read' then
	granted = not intent
else
	-- Held for writing: only its holder may add a read lock (a downgrade).
	granted = reading and ARGV[6] ~= '' and redis.call('hexists', KEYS[1], ARGV[6]) == 1
end
if granted then
	local ends = now + tonumber(ARGV[3])
	redis.call('hset', KEYS[1], ARGV[1], ends)
	redis.call('pexpireat', KEYS[1], math.max(latest, ends))
	if intent == ARGV[1] then
		redis.call('del', KEYS[2])
	end
	return {1, next_fencing_token(KEYS[3], ARGV[4], clock)}
end
if not reading and tonumber(ARGV[5]) > 0 and (not intent or intent == ARGV[1]) then
	redis.call('set', KEYS[2], ARGV[1], 'PX', ARGV[5])
	intent = ARGV[1]
end
local left = -1
if live > 0 then
	left = latest - now
end
if reading and intent then
	local intentLeft = redis.call('pttl', KEYS[2])
	if left < 0 or (intentLeft >= 0 and intentLeft < left) then
		left = intentLeft
	end
end
return {0, left}
