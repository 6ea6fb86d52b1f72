package io.github.redislock.engine;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.redislock.LockHandle;

/**
 * A handle on a {@link LockHold}: one per acquisition call, so that each reentrant
 * acquisition is released by its own {@link #close()}, once. What it asks of the engine
 * goes through {@link Holds}, so that the handle does not know the engine.
 *
 * @author redis-lock
 */
final class RedisLockHandle implements LockHandle {

	private final Holds holds;

	private final LockHold hold;

	private final AtomicBoolean closed = new AtomicBoolean();

	RedisLockHandle(Holds holds, LockHold hold) {
		this.holds = holds;
		this.hold = hold;
	}

	@Override
	public String key() {
		return this.hold.key();
	}

	@Override
	public long fencingToken() {
		return this.hold.fencingToken();
	}

	@Override
	public boolean isHeld() {
		return !this.closed.get() && this.hold.isHeld();
	}

	@Override
	public void extend(Duration leaseTime) {
		if (this.closed.get()) {
			throw new IllegalStateException("The handle of lock '" + key()
					+ "' was closed, so its lease can no longer be extended; extend before closing");
		}
		this.holds.extend(this.hold, leaseTime);
	}

	@Override
	public void close() {
		if (this.closed.compareAndSet(false, true)) {
			this.holds.release(this.hold);
		}
	}

	/** Completes on the Redis client's thread, or the caller's. */
	@Override
	public CompletionStage<Void> closeAsync() {
		if (this.closed.compareAndSet(false, true)) {
			return this.holds.releaseAsync(this.hold);
		}
		return CompletableFuture.completedFuture(null);
	}

	@Override
	public String toString() {
		return "LockHandle[key=" + key() + ", fencingToken=" + fencingToken() + ", held=" + isHeld() + "]";
	}

	/**
	 * What a handle asks of the engine for its hold, each with the contract of the
	 * {@link LockHandle} method of its name.
	 */
	interface Holds {

		void release(LockHold hold);

		CompletionStage<Void> releaseAsync(LockHold hold);

		void extend(LockHold hold, Duration leaseTime);

	}

}
