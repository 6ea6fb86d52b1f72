package io.github.redislock.benchmarks;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.redisson.api.RLockReactive;
import org.redisson.api.RedissonReactiveClient;
import reactor.core.publisher.Mono;

/**
 * Redisson's reactive API: {@code RLockReactive} from the {@code reactive()} view of a
 * {@link RedissonLockClient}'s client, which takes the locks asked for the blocking way.
 * <p>
 * {@code RLockReactive} has no thread to tell its owners apart: each call names its
 * owner, the {@code threadId} that Redisson's documentation asks the caller to pass to
 * {@code lock} and {@code unlock} alike. Every acquisition here has an owner of its own,
 * so that two chains never take each other's lock for their own and re-enter it.
 */
final class RedissonReactiveLockClient implements ReactiveLockClient {

	private final RedissonLockClient blocking;

	private final RedissonReactiveClient redisson;

	/** Owner ids, unique in this client; Redisson prefixes them with the client's id. */
	private final AtomicLong owners = new AtomicLong();

	RedissonReactiveLockClient(String host, int port) {
		this.blocking = new RedissonLockClient(host, port);
		this.redisson = this.blocking.redisson().reactive();
	}

	/**
	 * {@code tryLock} without a lease time, as the blocking client takes it: the watchdog
	 * renews it every third of {@code lockWatchdogTimeout}.
	 */
	@Override
	public <T> Mono<T> execute(String key, Mono<T> action) {
		return Mono.defer(() -> {
			long owner = this.owners.incrementAndGet();
			RLockReactive lock = this.redisson.getLock(key);
			Mono<RLockReactive> granted = lock.tryLock(WAIT_LIMIT.toMillis(), -1, TimeUnit.MILLISECONDS, owner)
				.flatMap((locked) -> locked ? Mono.just(lock) : Mono
					.error(new IllegalStateException("Redisson did not grant '" + key + "' within " + WAIT_LIMIT)));
			return Mono.usingWhen(granted, (held) -> action, (held) -> held.unlock(owner));
		});
	}

	@Override
	public LockClient blocking() {
		return this.blocking;
	}

}
