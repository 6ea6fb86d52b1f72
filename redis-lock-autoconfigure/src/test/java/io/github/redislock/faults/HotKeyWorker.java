package io.github.redislock.faults;

import java.util.List;
import java.util.Random;

import io.github.redislock.faults.NemesisSettings.HotKey;
import io.github.redislock.test.RedisCli;

/**
 * A thread of a nemesis node that locks the hot keys, which every node contends for, and
 * works on the {@link FencedResource} under them: it enters the critical section, writes
 * (or reads, under a read lock) with its fencing token twice with a pause between, and
 * leaves, checking before each step whether it still holds the lock, as an application
 * should. Now and then it acquires the held lock again (reentry).
 */
final class HotKeyWorker implements Runnable {

	private final String name;

	private final LockAttempts attempts;

	private final NodeControl control;

	private final RedisCli cli;

	private final Random random;

	HotKeyWorker(String name, LockAttempts attempts, NodeControl control, RedisCli cli, long seed) {
		this.name = name;
		this.attempts = attempts;
		this.control = control;
		this.cli = cli;
		this.random = new Random(seed);
	}

	@Override
	public void run() {
		FencedResource resource = new FencedResource(this.cli);
		List<HotKey> keys = NemesisSettings.HOT_KEYS;
		try {
			for (int iteration = 1; !this.control.isStopped(); iteration++) {
				HotKey key = keys.get(this.random.nextInt(keys.size()));
				String kind = key.kind().equals("RW") ? ((this.random.nextInt(100) < 65) ? "R" : "W") : key.kind();
				long wait = waitMillis();
				boolean reenter = this.random.nextInt(100) < 20;
				long pause = 2 + this.random.nextInt(60);
				String holdId = this.name + "-" + iteration;
				this.attempts.run(holdId, key.name(), kind, true, wait, (hold) -> {
					String mode = switch (kind) {
						case "R" -> "r";
						case "W" -> "w";
						default -> "x";
					};
					resource.enter(key.name(), holdId, hold.token(), mode);
					for (int step = 0; step < 2 && hold.isHeld(); step++) {
						resource.access(key.name(), holdId, hold.token(), mode);
						if (step == 0) {
							Thread.sleep(pause);
							if (reenter) {
								hold.reenter();
							}
						}
					}
					resource.exit(key.name(), holdId);
				});
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (RuntimeException ex) {
			this.attempts.unexpected("hot worker " + this.name + " (harness)", ex);
		}
	}

	/**
	 * Under faults, short waits and some attempts without wait; once faults stop, the
	 * bound within which every acquisition must succeed.
	 */
	private long waitMillis() {
		if (this.control.isQuiet()) {
			return NemesisSettings.QUIET_WAIT.toMillis();
		}
		if (this.random.nextInt(10) == 0) {
			return 0;
		}
		return 200 + this.random.nextInt((int) NemesisSettings.MAX_FAULTY_WAIT.toMillis() - 200);
	}

}
