package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Takes several locks one after another within one wait budget, for
 * {@link LockOperations#lockAll(List)}: each lock waits only for what the earlier ones
 * left of the budget, and a failure gives back the locks already taken, so that a caller
 * never holds some of them and not the others.
 *
 * @author redis-lock
 */
final class OrderedAcquisition {

	private OrderedAcquisition() {
	}

	static void requireNotEmpty(List<LockRequest> requests) {
		if (requests.isEmpty()) {
			throw new IllegalArgumentException("lockAll needs at least one lock request");
		}
	}

	/**
	 * Lock every request, in order.
	 * @param budget the wait shared by all, or {@code null} to let each request wait as
	 * it says (or for the implementation's default)
	 */
	static LockGroup lockAll(LockOperations locks, List<LockRequest> requests, @Nullable Duration budget) {
		requireNotEmpty(requests);
		long budgetNanos = (budget != null) ? saturatedNanos(budget) : 0;
		long start = System.nanoTime();
		List<LockHandle> taken = new ArrayList<>(requests.size());
		for (LockRequest request : requests) {
			LockRequest next = request;
			if (budget != null) {
				// Elapsed time, not a deadline: a budget near Long.MAX_VALUE nanoseconds
				// would overflow one.
				next = request.waitTime(taken.isEmpty() ? budget
						: Duration.ofNanos(Math.max(0, budgetNanos - (System.nanoTime() - start))));
			}
			try {
				taken.add(locks.lock(next));
			}
			catch (LockTimeoutException ex) {
				// The caller waited for the whole budget, not only for what this lock had
				// left of it.
				LockTimeoutException timeout = (budget != null && !taken.isEmpty())
						? new LockTimeoutException(ex.getKey(), budget) : ex;
				throw releaseAfter(taken, timeout);
			}
			catch (RuntimeException ex) {
				throw releaseAfter(taken, ex);
			}
			catch (Error ex) {
				throw releaseAfter(taken, ex);
			}
		}
		return new LockGroup(taken);
	}

	private static <T extends Throwable> T releaseAfter(List<LockHandle> taken, T failure) {
		try {
			new LockGroup(taken).close();
		}
		catch (RuntimeException | Error ex) {
			failure.addSuppressed(ex);
		}
		return failure;
	}

	private static long saturatedNanos(Duration duration) {
		try {
			return duration.toNanos();
		}
		catch (ArithmeticException ex) {
			return Long.MAX_VALUE;
		}
	}

}
