package io.github.redislock.engine;

import java.util.concurrent.CancellationException;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.log.LogMessage;

import io.github.redislock.LockInterruptedException;
import io.github.redislock.LockObserver;
import io.github.redislock.engine.LockWatchdog.LeaseEvents;

/**
 * Calls an application's {@link LockObserver}, logging what it throws instead: a failing
 * metric must not leave a lock acquired but never returned, nor stop the watchdog, whose
 * scheduled task would end at its first exception.
 *
 * @author redis-lock
 */
final class GuardedLockObserver implements LockObserver {

	private static final Log logger = LogFactory.getLog(GuardedLockObserver.class);

	private final LockObserver delegate;

	GuardedLockObserver(LockObserver delegate) {
		this.delegate = delegate;
	}

	@Override
	public @Nullable Object acquireStarted(String key, @Nullable String name) {
		return guard("acquireStarted", key, () -> this.delegate.acquireStarted(key, name));
	}

	@Override
	public void acquireEnded(String key, @Nullable Object context, AcquireOutcome outcome, long waitNanos,
			@Nullable Throwable failure) {
		guard("acquireEnded", key, () -> this.delegate.acquireEnded(key, context, outcome, waitNanos, failure));
	}

	@Override
	public @Nullable Object held(String key, @Nullable String name, long fencingToken,
			@Nullable Object acquireContext) {
		return guard("held", key, () -> this.delegate.held(key, name, fencingToken, acquireContext));
	}

	@Override
	public void released(String key, @Nullable Object holdContext, ReleaseOutcome outcome,
			@Nullable Throwable failure) {
		guard("released", key, () -> this.delegate.released(key, holdContext, outcome, failure));
	}

	@Override
	public void renewed(String key, @Nullable Object holdContext) {
		guard("renewed", key, () -> this.delegate.renewed(key, holdContext));
	}

	@Override
	public void renewalFailed(String key, @Nullable Object holdContext, Throwable failure) {
		guard("renewalFailed", key, () -> this.delegate.renewalFailed(key, holdContext, failure));
	}

	@Override
	public void lost(String key, long fencingToken, @Nullable Object holdContext) {
		guard("lost", key, () -> this.delegate.lost(key, fencingToken, holdContext));
	}

	private void guard(String method, String key, Runnable call) {
		guard(method, key, () -> {
			call.run();
			return null;
		});
	}

	private @Nullable Object guard(String method, String key, Supplier<@Nullable Object> call) {
		try {
			return call.get();
		}
		catch (RuntimeException ex) {
			logger.warn(LogMessage.format("Lock observer %s failed in %s for lock '%s'; the lock operation goes on",
					this.delegate, method, key), ex);
			return null;
		}
	}

	/**
	 * Tell the observer how a thread's or a pending acquisition ended (an interrupted or
	 * cancelled one as {@link AcquireOutcome#INTERRUPTED}) and, for a grant, that the
	 * hold began; {@code startedAt} is a {@link System#nanoTime()}.
	 */
	static void reportAcquireEnded(LockObserver observer, String key, @Nullable String name, @Nullable Object context,
			long startedAt, @Nullable LockHold hold, @Nullable Throwable failure) {
		long waitNanos = System.nanoTime() - startedAt;
		if (failure != null) {
			boolean interrupted = failure instanceof LockInterruptedException
					|| failure instanceof CancellationException;
			observer.acquireEnded(key, context, interrupted ? AcquireOutcome.INTERRUPTED : AcquireOutcome.FAILED,
					waitNanos, failure);
		}
		else if (hold == null) {
			observer.acquireEnded(key, context, AcquireOutcome.TIMED_OUT, waitNanos, null);
		}
		else {
			observer.acquireEnded(key, context, AcquireOutcome.ACQUIRED, waitNanos, null);
			hold.observed(observer.held(key, name, hold.fencingToken(), context));
		}
	}

	/** Reports what the watchdog finds, with the context of a lease's unreleased hold. */
	static final class Leases implements LeaseEvents {

		private final LockObserver observer;

		Leases(LockObserver observer) {
			this.observer = observer;
		}

		@Override
		public void renewed(LockLease lease) {
			this.observer.renewed(lease.key(), contextOf(holdOf(lease)));
		}

		@Override
		public void renewalFailed(LockLease lease, RuntimeException ex) {
			this.observer.renewalFailed(lease.key(), contextOf(holdOf(lease)), ex);
		}

		@Override
		public void lost(LockLease lease) {
			LockHold hold = holdOf(lease);
			if (hold == null && lease.hold() != null) {
				// Released as it was found lost: its release reports it.
				return;
			}
			this.observer.lost(lease.key(), (hold != null) ? hold.fencingToken() : lease.fencingToken(),
					contextOf(hold));
		}

		private static @Nullable LockHold holdOf(LockLease lease) {
			LockHold hold = lease.hold();
			return (hold != null && !hold.isReleased()) ? hold : null;
		}

		private static @Nullable Object contextOf(@Nullable LockHold hold) {
			return (hold != null) ? hold.observerContext() : null;
		}

	}

}
