-- Tells how long a lock is still held for, by anyone: an exclusive or fair holder, a reader or writer of the
-- read/write lock of the same name, or a holder of one of its permits. Reads only, so it is safe to run twice.
-- KEYS[1]  the lock key, as in acquire.lua and fair-acquire.lua; a released exclusive lock's tombstone counts as free
-- KEYS[2]  the holders of the read/write lock, as in rw-acquire.lua
-- KEYS[3]  the holders of the permits, as in permit-acquire.lua, whose fields that begin with '~' name waiting JVMs
-- Reply:   the lease left in milliseconds (the longest of the live holders'); -1 when the lock key has no expiry,
--          which only a hand-made key has; -2 when nobody holds the lock
local left = -2
if string.sub(redis.call('get', KEYS[1]) or 'r|', 1, 2) ~= 'r|' then
	left = redis.call('pttl', KEYS[1])
	if left == -1 then
		return -1
	end
end
local clock = redis.call('time')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
-- A read/write holder whose lease ended may still be listed until the next acquisition tidies up: not counted.
for k = 2, 3 do
	local entries = redis.call('hgetall', KEYS[k])
	for i = 1, #entries, 2 do
		if entries[i] ~= 'mode' and string.sub(entries[i], 1, 1) ~= '~' then
			local ends = tonumber(entries[i + 1])
			if ends and ends - now > left and ends > now then
				left = ends - now
			end
		end
	end
end
if left < 0 then
	return -2
end
return left
