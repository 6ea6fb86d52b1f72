package io.github.redislock.annotation;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Collectors;

import io.github.redislock.LockHandle;
import io.github.redislock.LockTemplate;
import io.github.redislock.contract.LockKeyValues;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;

/**
 * Reads which locks are held in Redis, and holds locks on a thread of its own: the eyes
 * of the {@link LockedServicesConfiguration} tests.
 */
class LockProbe {

	private final RedisServer redisServer;

	private final LockTemplate lockTemplate;

	private final ExecutorService otherThread = Executors.newSingleThreadExecutor();

	volatile Set<String> lastSeen = Set.of();

	LockProbe(RedisServer redisServer, LockTemplate lockTemplate) {
		this.redisServer = redisServer;
		this.lockTemplate = lockTemplate;
	}

	/**
	 * The names of the locks held in Redis now, by any owner: released locks leave a
	 * tombstone, which does not count.
	 */
	Set<String> held() {
		String prefix = this.lockTemplate.options().keyPrefix() + "{";
		try (RedisCli cli = this.redisServer.cli()) {
			return cli.keys(prefix + "*")
				.stream()
				.filter((key) -> key.endsWith("}") && LockKeyValues.holder(cli, key) != null)
				.map((key) -> key.substring(prefix.length(), key.length() - 1))
				.collect(Collectors.toSet());
		}
	}

	void record() {
		this.lastSeen = held();
	}

	/** Acquire a lock on another thread, so that this thread cannot re-enter it. */
	LockHandle holdElsewhere(String key) {
		return CompletableFuture.supplyAsync(() -> this.lockTemplate.lock(key), this.otherThread).join();
	}

	/** Whether another thread could take the lock now. */
	boolean isFreeForOthers(String key) {
		return CompletableFuture.supplyAsync(() -> this.lockTemplate.tryLock(key, Duration.ZERO).map((handle) -> {
			handle.close();
			return true;
		}).orElse(false), this.otherThread).join();
	}

	void flush() {
		try (RedisCli cli = this.redisServer.cli()) {
			cli.flushAll();
		}
	}

}
