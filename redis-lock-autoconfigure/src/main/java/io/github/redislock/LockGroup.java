package io.github.redislock;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Several locks held together, released together by {@link #close()} in the reverse order
 * of their acquisition, as nested try-with-resources blocks would release them. Returned
 * by {@link LockOperations#lockAll(List)}:
 *
 * <pre class="code">
 * try (LockGroup locks = lockTemplate.lockAll(List.of(LockRequest.of("account:1"), LockRequest.of("account:2")))) {
 *     transfer(from, to, amount);
 * }
 * </pre>
 *
 * Every handle is closed even when some fail; the first failure is thrown with the later
 * ones {@linkplain Throwable#getSuppressed() suppressed}. Thread-safe; may be closed from
 * another thread than the one that acquired it.
 *
 * @author redis-lock
 */
public final class LockGroup implements AutoCloseable {

	private final List<LockHandle> handles;

	private final AtomicBoolean closed = new AtomicBoolean();

	/**
	 * Create a group of handles already acquired.
	 * @param handles the handles, in the order they were acquired
	 */
	public LockGroup(List<LockHandle> handles) {
		this.handles = List.copyOf(handles);
	}

	/**
	 * Return the handles, in the order they were acquired.
	 * @return the handles, unmodifiable
	 */
	public List<LockHandle> handles() {
		return this.handles;
	}

	/**
	 * Return whether every lock of the group is still held: {@code false} once the group
	 * was closed, or when any of its locks was found lost.
	 * @return whether all the locks are held
	 */
	public boolean isHeld() {
		return !this.closed.get() && this.handles.stream().allMatch(LockHandle::isHeld);
	}

	/**
	 * Release every lock of the group, the last acquired first. Calling it again has no
	 * effect.
	 * @throws LockLostException when a lock was lost while held, so the work done under
	 * the group was not protected
	 * @throws LockAccessException when Redis failed during a release; that lock then
	 * expires at the end of its lease
	 */
	@Override
	public void close() {
		if (!this.closed.compareAndSet(false, true)) {
			return;
		}
		Throwable failure = null;
		for (int i = this.handles.size() - 1; i >= 0; i--) {
			try {
				this.handles.get(i).close();
			}
			catch (RuntimeException | Error ex) {
				if (failure == null) {
					failure = ex;
				}
				else {
					failure.addSuppressed(ex);
				}
			}
		}
		if (failure instanceof RuntimeException runtime) {
			throw runtime;
		}
		if (failure instanceof Error error) {
			throw error;
		}
	}

	@Override
	public String toString() {
		return "LockGroup" + this.handles;
	}

}
