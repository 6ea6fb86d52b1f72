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
 * moved; {@code MOVED} and {@code ASK} Lettuce follows itself). The script did not run,
 * so it is safe to send again: a release, which must land, every {@value #RETRY_MILLIS}
 * ms for up to two seconds ({@link #retry}, {@link #retryAsync}); an acquisition counts
 * as refused and its waiter tries again after {@value #RETRY_MILLIS} ms
 * ({@link AcquireAttempts}); a chunk of renewals on several slots is sent again lease by
 * lease ({@link RenewalWindow}).
 *
 * @author redis-lock
 */
final class SlotMigration {

	static final long RETRY_MILLIS = 50;

	private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(RETRY_MILLIS);

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
	 * @throws RuntimeException the call's last failure: not a migration's, or after two
	 * seconds
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
	 * As {@link #retry}, without blocking: the next try is scheduled, not slept.
	 * @param call sends the call; may throw as well as fail its answer
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
				catch (RejectedExecutionException closing) {
					// The migration's failure stands.
				}
			}
			result.completeExceptionally(ex);
		});
	}

	/** Runs a task after a delay, on a thread that may wait for Redis. */
	@FunctionalInterface
	interface Scheduler {

		void schedule(Runnable task, long delayNanos);

	}

}
