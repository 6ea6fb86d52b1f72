-- Releases an exclusive lock when the caller holds it: its key becomes a tombstone (lock-key.lua), which keeps the
-- last fencing token as the fence and marks the release as the caller's. Uncontended: GET and one SET.
-- Safe to run twice: the same release run again (Lettuce sends a command again after a reconnect when its answer
-- was lost) finds its tombstone, or, once a later grant replaced it, the mark that grant kept (keep_release_mark),
-- and reports the release, not a lost lock. A release or give-back that finds the lock not the caller's leaves the
-- caller's mark all the same (mark_not_held), so that the acquisition it gives back, should it reach Redis after
-- this, is refused (acquire.lua), and a release of a lost lock run again still reports the loss.
--
-- Publishes only when the key's flag says someone may wait for the message, so that a release nobody waits for
-- costs no PUBLISH. No waiter sleeps through this release for want of it:
-- - A waiter sleeps only after Redis refused it the lock, and it subscribes to the channel before that last try
--   (ReleaseSubscriptions). A refusal is atomic with the flag it leaves: a thread of another JVM than the holder's
--   sets 'c' on the grant that refused it, so the release of that grant publishes, and its JVM, subscribed, hears
--   it. The flag lives as long as the grant: hand-overs between the holder's threads and renewals keep it.
-- - A refused thread of the holder's own JVM leaves no flag: the holder's release is made by a thread of that JVM,
--   which then wakes a local waiter itself (LocalLocks.wakeOne; the message of one's own JVM wakes
--   nobody there anyway).
-- - A JVM that yields the lock after a release that reported another JVM waiting ('|y' on the tombstone) has
--   threads that sleep without being refused, until another JVM's release message: the next grant carries 'p',
--   so its release publishes.
-- - One release message wakes one waiter per JVM, which tries again and is granted or refused (flagging the new
--   grant) before the others of its JVM need waking; one that leaves passes the wake-up on (ChannelWaiters).
-- - Every sleep is bounded by the holder's lease left, so a holder that never releases (crashed, paused) wakes its
--   waiters when its lease ends, as it always did: a key that expires publishes nothing either way.
-- KEYS[1]  the lock key; the release mark of an owner is <KEYS[1]>:released:<owner> (LockScripts.releasedKey), the
--          release channel <KEYS[1]>:released (LockKind.channel)
-- ARGV[1]  the lock key's value as the caller's grant wrote it, 'h|<owner>|<token>', or '' when the caller does not
--          know its token (a give-back after an answer that was lost)
-- ARGV[2]  the caller's tombstone: 'r|<owner>|<fence>|<mark>', the fence being the greater of the grant's token and the
--          last fencing token used in this JVM when the grant was handed between its threads (0 when neither is
--          known), the mark as in lock-key.lua: how long the release stays known, as long as the client may send the
--          command again
-- ARGV[3]  how long the tombstone lasts, in milliseconds: the longer of the fence's retention and the mark
-- ARGV[4]  the command that publishes the release: 'spublish' (sharded, on a Redis 7 cluster) or 'publish'
-- Reply:   2 when released and a thread of another JVM was refused the lock since it was granted (it waits), 1 when
--          released otherwise or released before by this same release; 0 when the lock had expired or belongs to
--          another owner (it is left as it is)
local value = redis.call('get', KEYS[1])
if value == ARGV[1] then
	-- Held as granted, with no flag: nobody was refused and nobody waits for a message. The usual case costs GET and
	-- SET and nothing parsed, as the caller wrote the tombstone.
	redis.call('set', KEYS[1], ARGV[2], 'PX', ARGV[3])
	return 1
end
-- The functions of lock-key.lua go here (LockScripts.composedScript): past the usual case, which needs none of them,
-- since defining a function costs Redis on every run.
-- lock-key.lua
local _, owner, fence, mark = read_lock_key(ARGV[2])
local state, holder, token, rest = read_lock_key(value)
if holder ~= owner then
	return mark_not_held(KEYS[1], owner, tonumber(string.match(mark, '^|(%d+)')))
end
if state == 'r' then
	return 1
end
if tonumber(token) > tonumber(fence) then
	fence = token
end
local othersWait = rest == '|c'
redis.call('set', KEYS[1], 'r|' .. owner .. '|' .. fence .. mark .. (othersWait and '|y' or ''), 'PX', ARGV[3])
if rest == '' then
	return 1
end
-- The message names the owner, so that its own JVM can tell its releases from others'.
redis.call(ARGV[4], KEYS[1] .. ':released', owner)
return othersWait and 2 or 1
