package io.github.redislock.faults;

import java.util.Random;

/**
 * A thread of a nemesis node that locks names of its own, which nobody else ever locks,
 * now and then, and at once on every storm: all storm threads of a node then have a
 * command in flight when the nemesis cuts the connection. An acquisition of such a name
 * can only time out because of a grant of its own node (a replayed acquire taken for
 * someone else's, a grant nobody releases), and its release can only find the lock lost
 * if its lease ran out.
 */
final class StormWorker implements Runnable {

	private final String name;

	private final LockAttempts attempts;

	private final NodeControl control;

	private final Random random;

	StormWorker(String name, LockAttempts attempts, NodeControl control, long seed) {
		this.name = name;
		this.attempts = attempts;
		this.control = control;
		this.random = new Random(seed);
	}

	@Override
	public void run() {
		try {
			for (int iteration = 1; !this.control.isStopped(); iteration++) {
				this.control.awaitStorm(500 + this.random.nextInt(2500));
				if (this.control.isStopped()) {
					return;
				}
				int pick = this.random.nextInt(100);
				String kind = (pick < 55) ? "X" : (pick < 70) ? "F" : (pick < 85) ? "W" : "R";
				String key = this.name + switch (kind) {
					case "X" -> "";
					case "F" -> "-fair";
					default -> "-rw";
				};
				// Shorter than a lease: an attempt refused by its own grant times out.
				long wait = 1500 + this.random.nextInt(1500);
				long pause = this.random.nextInt(5);
				this.attempts.run(this.name + "-" + iteration, key, kind, false, wait, (hold) -> {
					Thread.sleep(pause);
					hold.isHeld();
				});
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (RuntimeException ex) {
			this.attempts.unexpected("storm worker " + this.name + " (harness)", ex);
		}
	}

}
