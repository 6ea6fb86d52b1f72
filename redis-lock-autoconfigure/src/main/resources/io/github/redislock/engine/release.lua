-- Releases an exclusive lock when the caller holds it: its key becomes a tombstone (lock-key.lua), which keeps the
-- last fencing token as the fence and marks the release as the caller's. Uncontended: GET and one SET.
-- Safe to run twice: the same release run again (Lettuce sends a command again after a reconnect when its answer
-- was lost) finds its tombstone, or, once a later grant replaced it, the mark that grant kept (keep_release_mark),
-- and reports the release, not a lost lock.
--
-- Publishes only when the key's flag says someone may wait for the message, so that a release nobody waits for
-- costs no PUBLISH. No waiter sleeps through this release for want of it:
-- - A waiter sleeps only after Redis refused it the lock, and it subscribes to the channel before that last try
--   (ReleaseSubscriptions). A refusal is atomic with the flag it leaves: a thread of another JVM than the holder's
--   sets 'c' on the grant that refused it, so the release of that grant publishes, and its JVM, subscribed, hears
--   it. The flag lives as long as the grant: hand-overs between the holder's threads and renewals keep it.
-- - A refused thread of the holder's own JVM leaves no flag: the holder's release is made by a thread of that JVM,
--   which then wakes a local waiter itself (ReleaseSubscriptions.releasedHere; the message of one's own JVM wakes
--   nobody there anyway).
-- - A JVM that yields the lock after a release that reported another JVM waiting ('|y' on the tombstone) has
--   threads that sleep without being refused, until another JVM's release message: the next grant carries 'p',
--   so its release publishes.
-- - One release message wakes one waiter per JVM, which tries again and is granted or refused (flagging the new
--   grant) before the others of its JVM need waking; one that leaves passes the wake-up on (ChannelWaiters).
-- - Every sleep is bounded by the holder's lease left, so a holder that never releases (crashed, paused) wakes its
--   waiters when its lease ends, as it always did: a key that expires publishes nothing either way.
-- KEYS[1]  the lock key
-- KEYS[2]  the release mark of the caller's owner token, kept by a later grant (keep_release_mark)
-- ARGV[1]  owner token of the caller
-- ARGV[2]  the release channel
-- ARGV[3]  the last fencing token used in this JVM when the grant was handed between its threads, else 0
-- ARGV[4]  how long the tombstone lasts, in milliseconds: the longer of the fence's retention and ARGV[6]
-- ARGV[5]  the command that publishes the release: 'spublish' (sharded, on a Redis 7 cluster) or 'publish'
-- ARGV[6]  how long the release stays known, in milliseconds: as long as the client may send the command again
-- Reply:   2 when released and a thread of another JVM was refused the lock since it was granted (it waits), 1 when
--          released otherwise or released before by this same release; 0 when the lock had expired or belongs to
--          another owner (it is left as it is)
local state, owner, token, rest = read_lock_key(redis.call('get', KEYS[1]))
if owner ~= ARGV[1] then
	return redis.call('exists', KEYS[2])
end
if state == 'r' then
	return 1
end
if tonumber(ARGV[3]) > tonumber(token) then
	token = ARGV[3]
end
local othersWait = rest == '|c'
redis.call('set', KEYS[1], 'r|' .. ARGV[1] .. '|' .. token .. '|' .. ARGV[6] .. (othersWait and '|y' or ''), 'PX',
	ARGV[4])
if rest == '' then
	return 1
end
-- The message names the owner, so that its own JVM can tell its releases from others'.
redis.call(ARGV[5], ARGV[2], ARGV[1])
return othersWait and 2 or 1
