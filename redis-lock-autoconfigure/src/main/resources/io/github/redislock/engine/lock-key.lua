-- Put in front of the scripts that read an exclusive lock's key (Redis scripts cannot include one another).

-- An exclusive lock keeps its whole state in its lock key, one string, so that an uncontended lock and release each
-- touch that one key (acquire.lua, release.lua):
--   h|<owner>|<token>         held: the holder's owner token and the fencing token of the grant; the lease is the
--                             key's TTL
--   h|<owner>|<token>|p       held, and the release publishes: the release before this grant yielded the lock to
--                             other JVMs, whose threads leave it alone until a release message comes or a while ends
--   h|<owner>|<token>|c       held, and a thread of another JVM than the holder's was refused since the grant: the
--                             release publishes and says so
--   r|<owner>|<token>|<mark>  released, a tombstone, which counts as free: the last owner and the last fencing token
--                             (the fence, so that the next grant's token is greater) and how long, in milliseconds,
--                             the owner's release stays known after its run, for a release that runs twice;
--                             '|y' follows when that release found another JVM's thread refused (its JVM now yields).
--                             It lasts as long as the fence and the mark must, the longer of the two.
-- A fair lock shares the key and stores its holder's bare owner token there (fair-acquire.lua): to these scripts a
-- holder of another kind, as is a value written by hand.

-- Returns what a lock key holds: 'h' (held) or 'r' (released), or nil when it holds nothing or a value of another
-- kind; then the owner token, the fencing token as text, and the rest: '', '|p' or '|c' when held, '|<mark>' or
-- '|<mark>|y' when released.
local function read_lock_key(value)
	if not value then
		return nil
	end
	return string.match(value, '^([hr])|([^|]*)|(%d+)(.*)$')
end

-- Answers a release or give-back that found the lock not the caller's (expired, lost, never granted, or released
-- before by this same release), and leaves the owner's mark, so that an acquisition of that owner that reaches Redis
-- later is refused (acquire.lua) and the same release run again answers the same. The mark holds 1 when the owner
-- released the lock (keep_release_mark), 0 when its release found nothing of it; one already there is kept.
-- Returns the mark: 1 when released before, 0 when the lock was not the owner's.
-- lock_key     the lock key; the mark is the owner's key as in LockScripts.releasedKey
-- mark_millis  how long the mark lasts, in milliseconds, as a number
local function mark_not_held(lock_key, owner, mark_millis)
	local mark = lock_key .. ':released:' .. owner
	local known = redis.call('get', mark)
	if known then
		return tonumber(known)
	end
	if mark_millis and mark_millis > 0 then
		redis.call('set', mark, 0, 'PX', mark_millis)
	end
	return 0
end

-- Keeps the release of a tombstone's owner known for the rest of its mark, in a key of its own, as a new grant
-- overwrites the tombstone: the release may still run again (Lettuce sends a command again after a reconnect when
-- its answer was lost), and must then report a release, not a lost lock. The mark is counted from now, a little
-- longer than needed, which only keeps a few bytes a little longer: an owner token is never granted again.
-- lock_key  the lock key; the mark is the owner's key as in LockScripts.releasedKey
-- rest      the tombstone's rest, as read_lock_key returns it
local function keep_release_mark(lock_key, owner, rest)
	local mark = tonumber(string.match(rest, '^|(%d+)'))
	if mark and mark > 0 then
		redis.call('set', lock_key .. ':released:' .. owner, 1, 'PX', mark)
	end
end

