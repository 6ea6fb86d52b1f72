package io.github.redislock.kotlin

import io.github.redislock.LockHandle
import io.github.redislock.LockTemplate
import io.github.redislock.contract.LockKeyValues
import io.github.redislock.test.RedisServer
import java.util.concurrent.CompletableFuture
import java.util.concurrent.Executors

/**
 * Reads which locks are held in Redis, and holds locks for another caller: the eyes of
 * the coroutine tests.
 *
 * @author redis-lock
 */
class HeldLocks(private val redisServer: RedisServer, private val lockTemplate: LockTemplate) {

	private val otherThread = Executors.newSingleThreadExecutor()

	/** The names of the locks held in Redis now, by any owner (a release's tombstone is free). */
	fun names(): Set<String> {
		val prefix = this.lockTemplate.options().keyPrefix() + "{"
		this.redisServer.cli().use { cli ->
			return cli.keys("$prefix*")
				.filter { it.endsWith("}") && LockKeyValues.holder(cli, it) != null }
				.map { it.substring(prefix.length, it.length - 1) }
				.toSet()
		}
	}

	/** The fencing token the lock's key keeps in Redis. */
	fun fencingToken(name: String): Long? = this.redisServer.cli().use { cli ->
		LockKeyValues.token(cli.get(this.lockTemplate.options().keyPrefix() + "{" + name + "}"))
	}

	/** Acquire a lock on a thread of its own, as another caller would. */
	fun holdElsewhere(name: String): LockHandle =
		CompletableFuture.supplyAsync({ this.lockTemplate.lock(name) }, this.otherThread).join()

	fun flush() {
		this.redisServer.cli().use { it.flushAll() }
	}

}
