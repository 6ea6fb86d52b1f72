package io.github.redislock.engine;

/**
 * What a release message asks of this JVM's waiters of its channel, as the lock kind that
 * sent it decodes it ({@link LockKind#wakeUpOf}).
 *
 * @author redis-lock
 */
abstract class WakeUp {

	/** Wakes nobody: the message is not for this JVM's waiters. */
	static final WakeUp NOBODY = new WakeUp("nobody") {

		@Override
		void wake(LocalLock waiters) {
		}

	};

	/**
	 * Wakes one waiter; another JVM released the lock, so this JVM yields it no longer.
	 */
	static final WakeUp NEXT = new WakeUp("next") {

		@Override
		void wake(LocalLock waiters) {
			waiters.signalOne();
		}

		@Override
		boolean endsYield() {
			return true;
		}

	};

	/** Wakes every waiter, since several of them may get in together. */
	static final WakeUp ALL = new WakeUp("all") {

		@Override
		void wake(LocalLock waiters) {
			waiters.signalAll();
		}

	};

	/** Wakes the one waiter that asks under the given owner token. */
	static WakeUp owner(String owner) {
		return new WakeUp("owner " + owner) {

			@Override
			void wake(LocalLock waiters) {
				waiters.signalOwner(owner);
			}

		};
	}

	private final String description;

	private WakeUp(String description) {
		this.description = description;
	}

	/** Wake the waiters of the message's channel that it names. */
	abstract void wake(LocalLock waiters);

	/** Whether the message ends this JVM's yielding of the lock to other JVMs. */
	boolean endsYield() {
		return false;
	}

	@Override
	public String toString() {
		return this.description;
	}

}
