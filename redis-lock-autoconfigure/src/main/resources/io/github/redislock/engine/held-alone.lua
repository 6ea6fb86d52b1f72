-- Whether the owner still holds an exclusive lock exactly as it was granted, with no flag: no thread of another JVM
-- was refused it since the grant ('c') and none waits for its release after its own JVM yielded ('p'). Asked without
-- waiting for the answer while the lock passes between the threads of the owner's JVM, which keep passing it for as
-- long as the answer is yes (HandOverChains). Reads only: safe to run twice.
-- KEYS[1]  the lock key
-- ARGV[1]  the lock key's value as the grant wrote it, 'h|<owner>|<token>'
-- Reply:   1 when so; 0 when flagged, released, expired or another owner's
if redis.call('get', KEYS[1]) == ARGV[1] then
	return 1
end
return 0
