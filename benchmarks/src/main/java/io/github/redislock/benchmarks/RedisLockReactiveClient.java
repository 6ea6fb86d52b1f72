package io.github.redislock.benchmarks;

import reactor.core.publisher.Mono;

import io.github.redislock.LockRequest;
import io.github.redislock.ReactiveLockTemplate;

/**
 * redis-lock's reactive API: a {@link ReactiveLockTemplate} on the engine of a
 * {@link RedisLockClient}, whose {@code LockTemplate} takes the locks asked for the
 * blocking way.
 */
final class RedisLockReactiveClient implements ReactiveLockClient {

	private final RedisLockClient blocking;

	private final ReactiveLockTemplate template;

	RedisLockReactiveClient(String host, int port) {
		this.blocking = new RedisLockClient(host, port);
		this.template = new ReactiveLockTemplate(this.blocking.engine());
	}

	@Override
	public <T> Mono<T> execute(String key, Mono<T> action) {
		return this.template.execute(LockRequest.of(key).waitTime(WAIT_LIMIT), action);
	}

	@Override
	public LockClient blocking() {
		return this.blocking;
	}

}
