package io.github.redislock.engine;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * Decides how long a grant may keep passing between the threads of this JVM without a
 * release in Redis: for as long as no thread of another JVM waits for the lock, and for
 * {@value #HAND_OVERS_WHILE_OTHERS_WAIT} hand-overs at least.
 *
 * <h2>Design notes</h2>
 *
 * A thread of another JVM that Redis refuses the lock flags the grant, atomically with
 * the refusal, and a grant made after this JVM yielded the lock carries a flag too
 * ({@code acquire.lua}); either means that a thread elsewhere waits for the release.
 * Every {@value #CHECK_EVERY} hand-overs of a grant, this JVM asks Redis whether the
 * grant is still as it was made ({@code held-alone.lua}), without waiting: the lock
 * passes on meanwhile. Once the answer is no, the chain ends with the next release past
 * {@value #HAND_OVERS_WHILE_OTHERS_WAIT} hand-overs, which goes through Redis and wakes
 * the waiters elsewhere. So a waiter of another JVM waits for at most about
 * {@value #CHECK_EVERY} critical sections and a round trip past that many, while the
 * threads of a JVM alone on a lock never end their chain: ending it costs a release and a
 * new grant, two round trips with the lock idle. A question that fails (Redis
 * unreachable, say) counts as a no, and so does a kind that cannot ask.
 * <p>
 * Two numbers, because they trade different things. A chain shorter than
 * {@value #HAND_OVERS_WHILE_OTHERS_WAIT} would switch the lock between JVMs more often,
 * and each switch leaves it idle for a release, a wake-up and a grant: several round
 * trips. Asking less often than every {@value #CHECK_EVERY} would let a refusal that came
 * just after a question go unseen for longer, and a chain grow past twice its length when
 * the lock passes quickly within the JVM (barging).
 *
 * @author redis-lock
 */
final class HandOverChains {

	/**
	 * How many hand-overs of a grant pass between two questions to Redis. Each question
	 * costs a round trip off the lock's path.
	 */
	static final int CHECK_EVERY = 16;

	/**
	 * How many hand-overs a chain makes, at least, once a thread of another JVM waits:
	 * the lock's share of this JVM when several contend, a few milliseconds.
	 */
	static final int HAND_OVERS_WHILE_OTHERS_WAIT = 32;

	private final LockScripts scripts;

	private final Executor opener;

	/**
	 * @param opener opens the connection when it is not open, as
	 * {@link LockScripts#executeAsync}
	 */
	HandOverChains(LockScripts scripts, Executor opener) {
		this.scripts = scripts;
		this.opener = opener;
	}

	/**
	 * Whether the hold's grant may be handed to another thread of this JVM once more,
	 * asking Redis whether others wait when it is time to.
	 */
	boolean mayContinue(LockHold hold) {
		LockLease lease = hold.lease();
		long handOver = hold.handoffs() + 1;
		if (lease.othersWait()) {
			return handOver <= HAND_OVERS_WHILE_OTHERS_WAIT;
		}
		if (handOver % CHECK_EVERY == 0) {
			ask(lease);
		}
		return true;
	}

	private void ask(LockLease lease) {
		ScriptCall<Long> call = lease.kind().heldAloneCall(this.scripts, lease);
		if (call == null) {
			lease.markOthersWait();
			return;
		}
		CompletionStage<Long> answer;
		try {
			answer = this.scripts.executeAsync(call, this.opener);
		}
		catch (RuntimeException ex) {
			answer = CompletableFuture.failedFuture(ex);
		}
		answer.whenComplete((heldAlone, failure) -> {
			if (failure != null || heldAlone == null || heldAlone != 1) {
				lease.markOthersWait();
			}
		});
	}

}
