package io.github.redislock.engine;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * What the engine does with a script refused because its lock's cluster slot is being
 * moved between nodes ({@code TRYAGAIN}: a script on several keys finds only some of them
 * moved). The script did not run, so it is safe to send again, shortly:
 * <ul>
 * <li>a release or a shutdown's release, which must land, is sent again every
 * {@value #RETRY_MILLIS} ms for up to two seconds ({@link #retry}, or {@link #retryAsync}
 * without blocking a thread);</li>
 * <li>an acquisition counts as refused, and its waiter tries again after
 * {@value #RETRY_MILLIS} ms, within its own wait time ({@link AcquireAttempts});</li>
 * <li>a chunk of renewals on several slots is sent again lease by lease, each redirected
 * to wherever its key is ({@link RenewalWindow}).</li>
 * </ul>
 *
 * @author redis-lock
 */
final class SlotMigration {

	/** How soon a script refused during a migration is tried again. */
	static final long RETRY_MILLIS = 50;

	private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(RETRY_MILLIS);

	/**
	 * How long a call refused during a migration is sent again before its failure counts.
	 */
	private static final long GIVE_UP_NANOS = TimeUnit.SECONDS.toNanos(2);

	private SlotMigration() {
	}

	/** Whether Redis refused the script because its keys' slot is being migrated. */
	static boolean isMigrating(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			String message = cause.getMessage();
			if (message != null && message.startsWith("TRYAGAIN")) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Run a call, again while Redis refuses it for a slot migration, sleeping in between.
	 * @return the call's answer
	 * @throws RuntimeException the call's last failure: one that is not a migration's, or
	 * a migration's after two seconds
	 */
	static <T> T retry(Supplier<T> call) {
		long giveUpAt = System.nanoTime() + GIVE_UP_NANOS;
		while (true) {
			try {
				return call.get();
			}
			catch (RuntimeException ex) {
				if (!isMigrating(ex) || System.nanoTime() - giveUpAt > 0) {
					throw ex;
				}
				LockSupport.parkNanos(RETRY_NANOS);
			}
		}
	}

	/**
	 * Send a call without blocking, again while Redis refuses it for a slot migration,
	 * scheduled rather than slept.
	 * @param call sends the call; may throw as well as fail its answer
	 * @param scheduler runs a task after a delay
	 * @return the call's answer; completed exceptionally with its last failure,
	 * unwrapped, as {@link #retry}
	 */
	static <T> CompletionStage<T> retryAsync(Supplier<CompletionStage<T>> call, Scheduler scheduler) {
		CompletableFuture<T> result = new CompletableFuture<>();
		send(call, scheduler, System.nanoTime() + GIVE_UP_NANOS, result);
		return result;
	}

	private static <T> void send(Supplier<CompletionStage<T>> call, Scheduler scheduler, long giveUpAt,
			CompletableFuture<T> result) {
		CompletionStage<T> answer;
		try {
			answer = call.get();
		}
		catch (RuntimeException ex) {
			answer = CompletableFuture.failedFuture(ex);
		}
		answer.whenComplete((reply, failure) -> {
			if (failure == null) {
				result.complete(reply);
				return;
			}
			Throwable ex = ScriptCommands.unwrap(failure);
			if (isMigrating(ex) && System.nanoTime() - giveUpAt <= 0) {
				try {
					scheduler.schedule(() -> send(call, scheduler, giveUpAt, result), RETRY_NANOS);
					return;
				}
				catch (RejectedExecutionException rejected) {
					// The engine is closing: the migration's failure stands.
				}
			}
			result.completeExceptionally(ex);
		});
	}

	/** Runs a task after a delay, on a thread that may wait for Redis. */
	@FunctionalInterface
	interface Scheduler {

		/** Run the task once the delay has passed. */
		void schedule(Runnable task, long delayNanos);

	}

}
