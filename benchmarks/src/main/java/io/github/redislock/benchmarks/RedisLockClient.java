package io.github.redislock.benchmarks;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.LockHandle;
import io.github.redislock.LockLostException;
import io.github.redislock.LockOptions;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.engine.RedisLockEngine;

/**
 * redis-lock: a {@link LockTemplate} on a {@link RedisLockEngine} with default options on
 * a Lettuce connection factory, with every kind of lock it offers.
 */
final class RedisLockClient implements LockClient {

	private final LettuceConnectionFactory connectionFactory;

	private final RedisLockEngine engine;

	private final LockTemplate template;

	RedisLockClient(String host, int port) {
		this.connectionFactory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port));
		this.connectionFactory.afterPropertiesSet();
		this.connectionFactory.start();
		this.engine = new RedisLockEngine(this.connectionFactory, LockOptions.defaults());
		this.template = new LockTemplate(this.engine);
	}

	/** The engine under the template, closed with this client. */
	RedisLockEngine engine() {
		return this.engine;
	}

	@Override
	public Release acquire(String key, @Nullable Duration lease) {
		LockRequest request = LockRequest.of(key);
		return lock((lease != null) ? request.leaseTime(lease) : request);
	}

	@Override
	public Release acquireFair(String key) {
		return lock(LockRequest.of(key).fair(true));
	}

	@Override
	public Release acquireRead(String key) {
		return lock(LockRequest.read(key));
	}

	@Override
	public Release acquireWrite(String key) {
		return lock(LockRequest.write(key));
	}

	/** A permit with the default lease, which the watchdog renews while it is held. */
	@Override
	public Release acquirePermit(String key, int limit) {
		return lock(LockRequest.permit(key, limit));
	}

	@Override
	public Renewed acquireRenewed(String key) {
		// No lease time, none in the default options either: the watchdog renews it
		return new RenewedHandle(this.template.lock(LockRequest.of(key).waitTime(WAIT_LIMIT)));
	}

	@Override
	public Duration renewInterval() {
		return this.template.options().renewInterval();
	}

	@Override
	public boolean noticesLoss() {
		return true;
	}

	private Release lock(LockRequest request) {
		LockHandle handle = this.template.lock(request.waitTime(WAIT_LIMIT));
		return handle::close;
	}

	@Override
	public void close() {
		this.template.close();
		this.connectionFactory.destroy();
	}

	/**
	 * A handle the watchdog renews: {@code isHeld()} turns false once a renewal found the
	 * lock lost, and {@code close()} throws {@link LockLostException} when the release
	 * finds it gone.
	 */
	private record RenewedHandle(LockHandle handle) implements Renewed {

		@Override
		public boolean lossNoticed() {
			return !this.handle.isHeld();
		}

		@Override
		public boolean release() {
			try {
				this.handle.close();
				return true;
			}
			catch (LockLostException ex) {
				return false;
			}
		}

	}

}
