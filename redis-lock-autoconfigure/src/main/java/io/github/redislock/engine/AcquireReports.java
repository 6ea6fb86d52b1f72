package io.github.redislock.engine;

import java.util.concurrent.CancellationException;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockInterruptedException;
import io.github.redislock.LockObserver;
import io.github.redislock.LockObserver.AcquireOutcome;

/**
 * How an acquisition's end is told to the observer, the same for a thread's acquisition
 * and a pending one: how it ended and how long it waited, and for a grant, the hold.
 *
 * @author redis-lock
 */
final class AcquireReports {

	private AcquireReports() {
	}

	/**
	 * Tell the observer how an acquisition ended.
	 * @param context what the observer returned when the acquisition started
	 * @param startedAt when the acquisition started ({@link System#nanoTime()})
	 * @param hold the hold granted, or {@code null}
	 * @param failure why the acquisition failed, or {@code null}; an interrupted or
	 * cancelled acquisition gave up as {@link AcquireOutcome#INTERRUPTED}
	 */
	static void ended(LockObserver observer, String key, @Nullable String name, @Nullable Object context,
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

}
