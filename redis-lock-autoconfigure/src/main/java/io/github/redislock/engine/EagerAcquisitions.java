package io.github.redislock.engine;

import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockOptions;

/**
 * The engine's side of eager acquisition: what the thread that receives a release message
 * sends for the waiter it wakes, so that the waiter wakes holding the lock. The waiter
 * queue decides whom to wake; this class makes the acquisition and records its grant.
 *
 * <p>
 * Only for a kind that {@linkplain LockKind#acquiresEagerly() acquires eagerly}, and not
 * with {@code minReplicas}, whose {@code WAIT} must follow the grant on the connection
 * that made it. The acquisition goes under an owner token of its own: the waiter may try
 * at the same time under its token, and since a script run twice for one owner grants
 * twice, sharing one would make one grant two holds, while two owners cannot both be
 * granted. A grant whose waiter left meanwhile is released on a housekeeping thread,
 * never on the Redis client's, which must stay free to answer.
 *
 * @author redis-lock
 */
final class EagerAcquisitions {

	private final LockOptions options;

	private final OwnerTokens tokens;

	private final LockScripts scripts;

	private final AsyncAcquirer asyncAcquirer;

	private final ReleaseSubscriptions subscriptions;

	private final Grants grants;

	private final BackgroundReleases backgroundReleases;

	private final LockReleaser releaser;

	private final Housekeeping housekeeping;

	/** {@code null} but in the tests of this package: see {@link Gate}. */
	private volatile @Nullable Gate gate;

	EagerAcquisitions(LockOptions options, OwnerTokens tokens, LockScripts scripts, AsyncAcquirer asyncAcquirer,
			ReleaseSubscriptions subscriptions, Grants grants, BackgroundReleases backgroundReleases,
			LockReleaser releaser, Housekeeping housekeeping) {
		this.options = options;
		this.tokens = tokens;
		this.scripts = scripts;
		this.asyncAcquirer = asyncAcquirer;
		this.subscriptions = subscriptions;
		this.grants = grants;
		this.backgroundReleases = backgroundReleases;
		this.releaser = releaser;
		this.housekeeping = housekeeping;
	}

	/**
	 * The eager acquisition of a waiter, or {@code null} when it must try by itself.
	 */
	@Nullable EagerAcquisition forWaiter(Acquisition acquisition) {
		if (!acquisition.kind().acquiresEagerly() || this.options.minReplicas() > 0) {
			return null;
		}
		return new ForWaiter(acquisition);
	}

	/**
	 * Hold the eager acquisitions that start from now on, for the tests of this package.
	 */
	void gate(@Nullable Gate gate) {
		this.gate = gate;
	}

	/**
	 * Lets a test hold an eager acquisition, between the waiter's claim and the send, and
	 * between the recorded grant and its delivery, so that a race between a late grant
	 * and its waiter getting the lock otherwise happens on every run rather than under
	 * load only. Production leaves it {@code null}: one field read per eager acquisition.
	 */
	@FunctionalInterface
	interface Gate {

		/**
		 * Start an eager acquisition.
		 * @param send sends it, and completes with its grant once recorded
		 * @return what the waiter is woken with, as {@link EagerAcquisition#start}
		 */
		CompletionStage<@Nullable LockHold> pass(Supplier<CompletionStage<@Nullable LockHold>> send);

	}

	private final class ForWaiter implements EagerAcquisition {

		private final Acquisition acquisition;

		ForWaiter(Acquisition acquisition) {
			this.acquisition = acquisition;
		}

		@Override
		public CompletionStage<@Nullable LockHold> start(@Nullable Thread thread) {
			Gate gate = EagerAcquisitions.this.gate;
			return (gate != null) ? gate.pass(() -> send(thread)) : send(thread);
		}

		private CompletionStage<@Nullable LockHold> send(@Nullable Thread thread) {
			EagerAcquisitions outer = EagerAcquisitions.this;
			Acquisition eager = this.acquisition.withOwner(outer.tokens.next());
			long sentAt = System.nanoTime();
			return outer.asyncAcquirer
				.acquire(eager.kind().acquireCall(outer.scripts, eager), outer.subscriptions.subscriptionCommands())
				.handle((attempt, ex) -> {
					if (ex != null) {
						// Redis may have granted it without an answer; nobody asks under
						// this owner token again, so give back whatever it holds.
						outer.backgroundReleases.giveBack(eager.kind(), eager.key(), eager.owner(),
								eager.leaseMillis());
						throw (ex instanceof RuntimeException runtime) ? runtime : new IllegalStateException(ex);
					}
					// Not the waiting thread's to re-enter until it takes it: it may have
					// got the lock otherwise meanwhile, and this grant goes back.
					return attempt.granted() ? outer.grants.grant(eager, attempt, thread, sentAt, false) : null;
				});
		}

		@Override
		public void undelivered(LockHold hold) {
			EagerAcquisitions.this.housekeeping.execute(() -> EagerAcquisitions.this.releaser.releaseQuietly(hold));
		}

	}

}
