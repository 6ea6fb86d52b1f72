package io.github.redislock.engine;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.redislock.LockHandle;

/**
 * A handle on a {@link LockHold}: one per acquisition call, so that each reentrant
 * acquisition is released by its own {@link #close()}, once. It asks the engine's running
 * parts, never the engine, which creates handles.
 *
 * @author redis-lock
 */
final class RedisLockHandle implements LockHandle {

	private final EngineParts.Running engine;

	private final LockHold hold;

	private final AtomicBoolean closed = new AtomicBoolean();

	RedisLockHandle(EngineParts.Running engine, LockHold hold) {
		this.engine = engine;
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
		this.engine.extensions().extend(this.hold, leaseTime);
	}

	@Override
	public void close() {
		if (this.closed.compareAndSet(false, true)) {
			this.engine.releaser().release(this.hold);
		}
	}

	/** Completes on the engine's threads, or the caller's. */
	@Override
	public CompletionStage<Void> closeAsync() {
		if (this.closed.compareAndSet(false, true)) {
			return this.engine.acquirer().releaseAsync(this.hold);
		}
		return CompletableFuture.completedFuture(null);
	}

	@Override
	public String toString() {
		return "LockHandle[key=" + key() + ", fencingToken=" + fencingToken() + ", held=" + isHeld() + "]";
	}

}
