package io.github.redislock.engine;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.log.LogMessage;

import io.github.redislock.engine.LockWatchdog.LeaseEvents;
import io.github.redislock.engine.ScriptCommands.ScriptCall;

/**
 * Passes a renewed grant of a kind that allows it ({@link LockKind#passes()}) from a
 * thread of this JVM that releases it to the first thread of this JVM in line for it,
 * without a round trip, when Redis confirmed the grant a moment ago.
 *
 * <h2>Design notes</h2>
 *
 * A pass grants without asking Redis, so it keeps each promise of a grant by a rule of
 * its own. {@code FastPathSafetyTests}, {@code LockHandOverTests} and the fault test
 * {@code LockLossNemesisTests} watch them: tokens in grant order and below the server's
 * {@code TIME}, no holder of a lost grant untold, no waiter starved.
 * <ul>
 * <li><b>Only on a grant Redis confirmed a moment ago.</b> A pass needs a check
 * ({@code check.lua}) sent at most {@link GrantCheck#WINDOW_NANOS} (5 ms) before that
 * found the grant held and no thread of another JVM waiting. Past half the window, a pass
 * or a release sends the next check without waiting for it, so that a pass on a live
 * grant does not wait. A release that finds the last check too old while a thread waits
 * waits for one sent after its release began (holders share one:
 * {@link GrantCheck#joinOrSend}), and releases through Redis if that check fails. A check
 * that finds the grant gone marks it lost; one that fails or goes unanswered confirms
 * nothing, and is sent again for a holder waiting to be told. Either way nobody is
 * admitted on the grant from then on.</li>
 * <li><b>Every holder of a lost grant is told.</b> A holder that passed the lock returns
 * from its release only once a check sent after its release began found the grant held;
 * otherwise it throws {@code LockLostException}, as when no check could be answered
 * before the grant's lease would have run out. A holder admitted on a grant found lost
 * afterwards sees {@code isHeld()} false and is told at its own release. So a loss that
 * Redis suffers (a flush, a restart without data, an eviction) is told to every holder
 * admitted after it, and at most the window's holders are admitted before it is
 * known.</li>
 * <li><b>Fencing tokens in order, never ahead of the server.</b> The next holder's token
 * is the last plus one, and stays below the server's clock at the check that allowed the
 * pass ({@link GrantCheck#nextToken}): every token given under a grant is smaller than
 * any Redis issues after that check, whatever the rate of passes, the idle time after
 * them or a loss of the key, and none exceeds what the server could have issued when it
 * was given. The release through Redis keeps the last token in the tombstone, for a
 * server clock stepped back.</li>
 * <li><b>In arrival order, whatever the lease.</b> The grant goes to the first waiter of
 * this JVM's line ({@link LocalLock}), and only if it asked for a renewed lease, which is
 * what the grant has; a first waiter with a fixed lease is woken to ask Redis after a
 * release there, so no waiter is skipped.</li>
 * <li><b>Other JVMs get their turn.</b> Once a check finds a thread of another JVM
 * waiting, the grant passes {@link GrantCheck#PASSES_WHILE_OTHERS_WAIT} (16) more times
 * at most; then the release goes through Redis, and this JVM yields the lock for a while
 * ({@link LocalLock#yieldFor}).</li>
 * </ul>
 *
 * @author redis-lock
 */
record HandOver(LockScripts scripts, LocalLocks locks, LockWatchdog watchdog, LeaseEvents events,
		EngineThreads threads) {

	private static final Log logger = LogFactory.getLog(HandOver.class);

	/** How long after a check that failed the next is sent, for a releasing holder. */
	private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

	private static final CompletableFuture<Boolean> NOT_PASSED = CompletableFuture.completedFuture(false);

	/**
	 * Pass the hold's grant to this JVM's first waiter, as the design note allows.
	 * @param releasedAt when the release began
	 * @return completes with whether it passed; if not, the caller releases it in Redis
	 */
	CompletionStage<Boolean> pass(LockHold hold, String channel, long releasedAt) {
		LockLease lease = hold.lease();
		GrantCheck check = lease.check();
		LocalLock lock = this.locks.find(channel);
		if (check == null || lock == null || lease.isLost() || lease.isRevoked() || !lock.firstTakesHandOver()) {
			return NOT_PASSED;
		}
		long now = System.nanoTime();
		if (check.isFresh(now)) {
			if (check.shouldAskAhead(now)) {
				checkSince(lease, now);
			}
			return CompletableFuture.completedFuture(passNow(hold, check, lock, now));
		}
		if (check.yieldsToOthers()) {
			return NOT_PASSED;
		}
		return checkSince(lease, releasedAt)
			.handle((held, ex) -> ex == null && held && passNow(hold, check, lock, System.nanoTime()));
	}

	private boolean passNow(LockHold hold, GrantCheck check, LocalLock lock, long now) {
		return lock.passTo(hold, (waiter) -> successor(hold, check, waiter, now));
	}

	/**
	 * Whether a check sent at or after the given time found the grant held. A check that
	 * fails or gets no answer tells nothing: another is sent until the lease would have
	 * run out, and then the grant counts as lost.
	 */
	CompletableFuture<Boolean> held(LockLease lease, long since) {
		return checkSince(lease, since).handle((held, ex) -> (ex != null) ? null : held).thenCompose((held) -> {
			if (held != null) {
				return CompletableFuture.completedFuture(held);
			}
			if (lease.isLost() || expired(lease)) {
				return CompletableFuture.completedFuture(false);
			}
			CompletableFuture<Boolean> again = new CompletableFuture<>();
			this.threads.later(() -> held(lease, System.nanoTime()).whenComplete((result, failure) -> {
				again.complete(failure == null && result);
			}), RETRY_NANOS);
			return again;
		});
	}

	/** Whether the lease ran out unless Redis renewed it meanwhile; marked lost if so. */
	private boolean expired(LockLease lease) {
		if (System.nanoTime() - lease.expiresAtNanos() < 0) {
			return false;
		}
		lost(lease, "Redis could not be asked whether it still held the lock before its lease ran out");
		return true;
	}

	/** A check of the grant sent at or after the given time, sent now if none was. */
	private CompletableFuture<Boolean> checkSince(LockLease lease, long since) {
		GrantCheck check = lease.check();
		if (check == null) {
			return CompletableFuture.completedFuture(!lease.isLost());
		}
		CompletableFuture<Boolean> answer = new CompletableFuture<>();
		long sentAt = System.nanoTime();
		CompletableFuture<Boolean> shared = check.joinOrSend(since, answer, sentAt);
		if (shared != null) {
			return shared;
		}
		send(lease, check, sentAt, answer);
		return answer;
	}

	/** Send the check queued behind the one that just answered, if any. */
	private void sendQueued(LockLease lease, GrantCheck check) {
		long sentAt = System.nanoTime();
		CompletableFuture<Boolean> next = check.sendQueued(sentAt);
		if (next != null) {
			send(lease, check, sentAt, next);
		}
	}

	@SuppressWarnings("rawtypes")
	private void send(LockLease lease, GrantCheck check, long sentAt, CompletableFuture<Boolean> answer) {
		ScriptCall<List> call = lease.kind().checkCall(this.scripts, lease);
		if (call == null) {
			answer.complete(!lease.isLost());
			return;
		}
		answer.whenComplete((held, failure) -> sendQueued(lease, check));
		this.scripts.executeAsync(call, this.threads).whenComplete((reply, ex) -> {
			if (ex != null || reply == null || reply.size() < 3) {
				answer.completeExceptionally((ex != null) ? ScriptCommands.unwrap(ex)
						: new IllegalStateException("Unexpected answer to a lock check: " + reply));
				return;
			}
			long state = ((Number) reply.get(0)).longValue();
			if (state == 3) {
				// Released in Redis by a later holder of this JVM: held until then.
				answer.complete(true);
				return;
			}
			if (state == 0) {
				lost(lease, "Redis no longer holds it for its grant (its key was deleted, flushed, evicted or lost "
						+ "with a restart, or its lease ran out)");
				answer.complete(false);
				return;
			}
			long micros = ((Number) reply.get(1)).longValue() * 1_000_000 + ((Number) reply.get(2)).longValue();
			check.held(sentAt, state == 1, micros);
			answer.complete(!lease.isLost());
		});
	}

	private @Nullable LockHold successor(LockHold released, GrantCheck check, Waiter waiter, long now) {
		long token = check.nextToken(now);
		if (token == 0) {
			return null;
		}
		LockHold next = new LockHold(released.lease(), token, waiter.reentrantThread());
		released.lease().heldBy(next);
		return next;
	}

	/**
	 * Mark the grant lost at once, so that nobody is admitted on it, and report it from
	 * the engine's threads rather than the Redis client's.
	 */
	private void lost(LockLease lease, String reason) {
		this.watchdog.unwatch(lease);
		if (!lease.markLost()) {
			return;
		}
		this.threads.execute(() -> {
			if (lease.claimLossReport()) {
				warnLost(logger, lease.key(), lease.fencingToken(), reason);
			}
			this.events.lost(lease);
		});
	}

	/** Warn that a lock was lost while held, and tell what its holder should do. */
	static void warnLost(Log logger, String key, long fencingToken, String reason) {
		logger.warn(LogMessage.format("Lost lock '%s' (fencing token %s) while it was held: %s; work done under it is "
				+ "no longer exclusive. Its holder finds it lost from isHeld() and at release: stop the work, and "
				+ "fence its writes with the fencing token", key, fencingToken, reason));
	}

}
