package io.github.redislock.engine;

import org.jspecify.annotations.Nullable;

/**
 * Passes a released hold to a thread of this JVM that wants the lock, without a round
 * trip: the grant in Redis stays as it is, and the next owner holds it with the next
 * fencing token ({@link LockHold#successor}).
 *
 * <h2>Design notes</h2>
 *
 * <b>Bounded barging.</b> Handing the lock to the first waiter leaves it idle while that
 * waiter's thread is scheduled, which costs a lock that serves waiters strictly in order
 * about a quarter of its throughput against one that lets the releasing thread take the
 * lock again at once. So for a kind that {@linkplain LockKind#barges() barges}, a
 * released hold with a local waiter is left <em>vacant</em> instead: the lease stays
 * granted and renewed, the first waiter is woken, and whichever thread of this JVM asks
 * first takes it ({@link #takeVacant}): a new caller, the releasing thread asking again,
 * or the woken waiter, which otherwise sleeps on at its place in line. Once the first
 * waiter has waited for the lock's {@linkplain BargingWindow barging window} (a few turns
 * of the line at the lock's measured hold time, 2 to 10 ms) it is handed the lock as
 * before, so barging never makes a waiter wait much longer than that (the model is Go's
 * {@code sync.Mutex} starvation mode, whose window is a fixed 1 ms). Waiters of a pending
 * acquisition, which has no thread to wake, are handed the lock at once.
 *
 * <p>
 * <b>Few wake-ups for nothing.</b> A waiter woken for a vacant lock that a barger took
 * first <em>naps</em>: it sleeps only until it has waited long enough to be handed the
 * lock, and the vacant locks left meanwhile do not wake it, since in a busy line a barger
 * takes nearly every one. A vacant lock that nobody takes stays idle until the waiter
 * wakes by itself, within the window.
 *
 * <p>
 * <b>Never stranded.</b> A vacant hold is kept by the channel's {@link ChannelWaiters}
 * and stays in {@link LocalHolds}, released by all its handles. Any waiter that leaves
 * the channel takes it back ({@link ChannelWaiters#remove}) and releases it again, which
 * passes it to the next waiter or releases it in Redis; a shutdown releases one left over
 * with the other holds.
 *
 * <p>
 * <b>Other JVMs.</b> Only for a renewed lease, since the next owner asks for the lease
 * length the watchdog keeps, and only while no thread of another JVM waits for the lock
 * ({@link HandOverChains}), barging included: the release that ends a chain goes through
 * Redis and wakes waiters in other JVMs. The new hold takes the place of the released one
 * in {@link LocalHolds} only if that is still there: a grant by Redis to another owner of
 * this JVM that came between means the lease being handed over had ended in Redis, and
 * nobody takes it.
 *
 * @author redis-lock
 */
final class LocalHandOver {

	private final LocalHolds holds;

	private final ReleaseSubscriptions subscriptions;

	private final HandOverChains chains;

	LocalHandOver(LocalHolds holds, ReleaseSubscriptions subscriptions, HandOverChains chains) {
		this.holds = holds;
		this.subscriptions = subscriptions;
		this.chains = chains;
	}

	/**
	 * Hand a hold its handles all released to the first local waiter of the channel that
	 * accepts it, or leave it vacant for the first thread of this JVM that asks.
	 * @return whether a waiter took it, or it was left vacant; if not, the caller
	 * releases it in Redis
	 */
	boolean handOver(LockHold hold, String channel) {
		return handOver(hold, channel, hold.heldNanos());
	}

	/**
	 * Hand over a vacant hold that a leaving waiter gave back, as {@link #handOver}: it
	 * was held by no thread, so its time does not count towards the lock's hold time.
	 */
	boolean handOverVacant(LockHold hold, String channel) {
		return handOver(hold, channel, -1);
	}

	private boolean handOver(LockHold hold, String channel, long heldNanos) {
		if (!mayHandOver(hold)) {
			return false;
		}
		LockHold vacant = hold.lease().kind().barges() ? hold : null;
		return this.subscriptions.handOff(channel, vacant, heldNanos, hold::successor, (next) -> install(hold, next));
	}

	/**
	 * Take the lock's vacant hold, if it has one, as the given thread's.
	 * @param thread the thread that may re-enter the hold, or {@code null}
	 * @return the new hold, or {@code null}
	 */
	@Nullable LockHold takeVacant(String channel, @Nullable Thread thread) {
		return this.subscriptions.takeVacant(channel,
				(vacant) -> vacant.lease().isMarkedLost() ? null : vacant.successor(thread), this::install);
	}

	private boolean mayHandOver(LockHold hold) {
		LockLease lease = hold.lease();
		return lease.kind().handsOver() && lease.isRenewed() && !lease.isLost() && this.chains.mayContinue(hold);
	}

	private boolean install(LockHold previous, LockHold next) {
		if (!this.holds.handedOver(previous, next)) {
			return false;
		}
		next.lease().heldBy(next);
		return true;
	}

}
