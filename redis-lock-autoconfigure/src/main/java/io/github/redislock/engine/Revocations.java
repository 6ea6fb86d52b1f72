package io.github.redislock.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.log.LogMessage;

import io.github.redislock.LockLostException;
import io.github.redislock.LockObserver;
import io.github.redislock.engine.ScriptBatches.AwaitedAnswers;
import io.github.redislock.engine.ScriptCommands.PreparedCall;

/**
 * The releases a shutdown sends for the holds whose holders did not finish within the
 * grace time: each hold is revoked (its holder finds it lost, at its release or from
 * {@code isHeld()}), and its lock released in Redis.
 *
 * @author redis-lock
 */
final class Revocations {

	private static final Log logger = LogFactory.getLog(Revocations.class);

	/**
	 * How many releases a shutdown sends at once, and awaits before it sends more: few
	 * enough that Redis answers them all well within a command timeout.
	 */
	private static final int RELEASE_BATCH = 1000;

	private final LockScripts scripts;

	private final LocalLocks locks;

	private final LockWatchdog watchdog;

	private final @Nullable LockObserver observer;

	Revocations(LockScripts scripts, LocalLocks locks, LockWatchdog watchdog, @Nullable LockObserver observer) {
		this.scripts = scripts;
		this.locks = locks;
		this.watchdog = watchdog;
		this.observer = observer;
	}

	/**
	 * Release holds in Redis as the engine shuts down, while their holders still run:
	 * each finds its lock lost. The scripts of all of them are sent at once and their
	 * answers awaited together, so that a JVM holding many locks gives them back in about
	 * one round trip rather than one each, by the engine's deadline. A release that
	 * failed is sent once more on its own; one that fails again, or got no answer by the
	 * deadline, is logged, and its lock expires with its lease at the latest.
	 * @return the holds released by this call, in the order given
	 */
	List<LockHold> revokeAll(List<LockHold> holds) {
		List<LockHold> revoked = new ArrayList<>();
		List<PreparedCall<Long>> calls = new ArrayList<>();
		for (LockHold hold : holds) {
			LockLease lease = hold.lease();
			if (!lease.revoke()) {
				continue;
			}
			this.locks.released(hold);
			this.watchdog.unwatch(lease);
			if (this.observer != null && !hold.isReleased()) {
				// A vacant hold has no holder to tell.
				this.observer.lost(hold.key(), hold.fencingToken(), hold.observerContext());
			}
			revoked.add(hold);
			calls.add(lease.kind()
				.releaseCall(this.scripts, hold.key(), lease.owner(), lease.fencingToken(), hold.fencingToken())
				.prepared());
		}
		for (int first = 0; first < calls.size(); first += RELEASE_BATCH) {
			int end = Math.min(first + RELEASE_BATCH, calls.size());
			AwaitedAnswers answers = new AwaitedAnswers(end - first);
			boolean sent = false;
			try {
				this.scripts.executeAllAsync(calls.subList(first, end), answers.list());
				sent = true;
				answers.await(TimeUnit.NANOSECONDS.toMillis(this.watchdog.answerDeadlineNanos()));
			}
			catch (RuntimeException ex) {
				logger.debug("Could not send the releases of the locks still held together; sending them one by one",
						ex);
			}
			for (int i = first; i < end; i++) {
				if (!sent || answers.failed(i - first)) {
					revokeAgain(revoked.get(i));
				}
				else if (!answers.succeeded(i - first)) {
					// Still queued in the client, which sends it again after a reconnect:
					// one sent now would wait behind it.
					logger.warn(LogMessage.format(
							"Redis did not answer the release of lock '%s' as the engine "
									+ "shut down; it may still run, and the lock expires with its lease at the latest",
							revoked.get(i).key()));
				}
			}
		}
		return revoked;
	}

	/**
	 * Release a revoked hold on its own, again for a while if the lock's cluster slot is
	 * being migrated; a failure is logged, and the lock expires with its lease.
	 */
	private void revokeAgain(LockHold hold) {
		LockLease lease = hold.lease();
		try {
			SlotMigration.retry(() -> lease.kind()
				.release(this.scripts, hold.key(), lease.owner(), lease.fencingToken(), hold.fencingToken()));
		}
		catch (RuntimeException ex) {
			logger.warn(LogMessage.format(
					"Could not release lock '%s' as the engine shut down; it expires with its lease", hold.key()), ex);
		}
	}

	/**
	 * What the holder of a revoked hold is told at its release: its work may have
	 * overlapped another owner's.
	 */
	static LockLostException lostException(LockHold hold) {
		return new LockLostException(hold.key(), hold.fencingToken(), "Lock '" + hold.key() + "' (fencing token "
				+ hold.fencingToken() + ") was released while held, because the application shut down and its holder "
				+ "did not finish within the grace time, so the work done under it may have overlapped with another "
				+ "owner; finish or stop the work within spring.lifecycle.timeout-per-shutdown-phase (or the grace "
				+ "given to LockTemplate.shutdown)", !hold.lease().claimLossReport());
	}

}
