package io.github.redislock.engine;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockHandle;
import io.github.redislock.LockLostException;

/**
 * A lock held in this JVM, shared by its owner thread's reentrant {@link Handle handles},
 * the handles the engine returns. The count changes under the hold's monitor: the owner
 * may re-enter while another thread closes an earlier handle.
 *
 * @author redis-lock
 */
final class LockHold {

	private final LockLease lease;

	private final long fencingToken;

	/** The thread that may re-enter, or {@code null} when none may. */
	private final @Nullable Thread ownerThread;

	private final Key holdKey;

	private final long acquiredAtMillis = System.currentTimeMillis();

	private int count = 1;

	/** What the observer returned when the hold started, read by other threads. */
	private volatile @Nullable Object observerContext;

	LockHold(LockLease lease, long fencingToken, @Nullable Thread ownerThread) {
		this.lease = lease;
		this.fencingToken = fencingToken;
		this.ownerThread = ownerThread;
		this.holdKey = lease.kind().holdKey(lease, ownerThread);
	}

	LockLease lease() {
		return this.lease;
	}

	/** The key of this hold among its lock's holds, which its kind decides. */
	Key holdKey() {
		return this.holdKey;
	}

	String key() {
		return this.lease.key();
	}

	long fencingToken() {
		return this.fencingToken;
	}

	@Nullable Thread ownerThread() {
		return this.ownerThread;
	}

	long acquiredAtMillis() {
		return this.acquiredAtMillis;
	}

	@Nullable Object observerContext() {
		return this.observerContext;
	}

	void observed(@Nullable Object observerContext) {
		this.observerContext = observerContext;
	}

	boolean isHeld() {
		return !this.lease.isLost();
	}

	boolean isLost() {
		return this.lease.isLost();
	}

	/** The holder's exception for a lost lock, telling whether it was reported. */
	LockLostException lostException() {
		return new LockLostException(key(), this.fencingToken, !this.lease.claimLossReport());
	}

	/** Count one more handle, unless the hold was already released or lost. */
	synchronized boolean tryReenter() {
		if (this.count == 0 || this.lease.isLost()) {
			return false;
		}
		this.count++;
		return true;
	}

	/** Count one handle less; true when it was the last. */
	synchronized boolean exit() {
		return --this.count == 0;
	}

	synchronized boolean isReleased() {
		return this.count == 0;
	}

	/**
	 * A handle on a hold: one per acquisition call, so that each reentrant acquisition is
	 * released by its own {@link #close()}, once. It asks the engine's running parts,
	 * never the engine, which creates handles.
	 */
	static final class Handle implements LockHandle {

		private final EngineParts.Running engine;

		private final LockHold hold;

		private final AtomicBoolean closed = new AtomicBoolean();

		Handle(EngineParts.Running engine, LockHold hold) {
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

	/**
	 * Where a hold is found among its lock's holds ({@link LocalLock}). A typed key
	 * rather than a string built from the name, so that no name a user or a key template
	 * can write, such as {@code "x (write)"}, finds the hold of another lock.
	 *
	 * @param name the lock's name as the caller gave it
	 * @param state the Redis state the hold stands for: exclusive and fair locks of one
	 * name share {@link #LOCK} on purpose, since they share their key and exclude each
	 * other
	 * @param holder for a shared hold, the thread that may re-enter it or, when none may,
	 * its owner token; {@code null} for a lock with one holder at a time
	 */
	record Key(String name, String state, @Nullable Object holder) {

		static final String LOCK = "lock";

		static final String WRITE = "write";

		/** The read side of a read/write lock, one hold per reader. */
		static final String READ = "read";

		/** A permit, one hold per holder. */
		static final String PERMIT = "permit";

	}

}
