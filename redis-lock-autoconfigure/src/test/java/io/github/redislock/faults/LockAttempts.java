package io.github.redislock.faults;

import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import io.github.redislock.LockAccessException;
import io.github.redislock.LockDiagnostics;
import io.github.redislock.LockHandle;
import io.github.redislock.LockLostException;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.LockTimeoutException;
import io.github.redislock.faults.NemesisHistory.Attempt;
import io.github.redislock.faults.NemesisHistory.Orphan;
import io.github.redislock.faults.NemesisHistory.State;
import io.github.redislock.faults.NemesisHistory.Unexpected;

/**
 * Runs one acquisition of a nemesis node from start to release and records what each step
 * returned or threw: the acquisition, the hold's critical section (whose body the caller
 * gives), whether the holder was told its lock was lost, and the release. When an
 * acquisition times out, it looks for a grant of the node's own in the way.
 */
final class LockAttempts {

	private final String node;

	private final LockTemplate template;

	private final LockDiagnostics diagnostics;

	private final LockInspector inspector;

	private final Consumer<String> history;

	LockAttempts(String node, LockTemplate template, LockDiagnostics diagnostics, LockInspector inspector,
			Consumer<String> history) {
		this.node = node;
		this.template = template;
		this.diagnostics = diagnostics;
		this.inspector = inspector;
		this.history = history;
	}

	static LockRequest request(String key, String kind, long waitMillis) {
		LockRequest request = switch (kind) {
			case "X" -> LockRequest.of(key);
			case "L" -> LockRequest.of(key).leaseTime(NemesisSettings.FIXED_LEASE);
			case "F" -> LockRequest.of(key).fair(true);
			case "R" -> LockRequest.read(key);
			case "W" -> LockRequest.write(key);
			default -> throw new IllegalArgumentException("Unknown kind " + kind);
		};
		return request.waitTime(Duration.ofMillis(waitMillis));
	}

	/**
	 * Acquires, runs the section while held, releases, and records the attempt.
	 * @param holdId the id of this attempt
	 * @param key the lock name
	 * @param kind the lock kind, as in {@link Attempt#kind()}
	 * @param contended whether other threads lock the name too
	 * @param waitMillis the wait time
	 * @param section the work done under the lock
	 */
	void run(String holdId, String key, String kind, boolean contended, long waitMillis, Section section)
			throws InterruptedException {
		LockRequest request = request(key, kind, waitMillis);
		long start = System.currentTimeMillis();
		this.inspector.count(key, kind, true, 1);
		String outcome;
		String detail = "-";
		LockHandle handle = null;
		try {
			handle = this.template.tryLock(request).orElse(null);
			outcome = (handle != null) ? "GRANTED" : "TIMEOUT";
		}
		catch (LockTimeoutException ex) {
			outcome = "TIMEOUT";
		}
		catch (LockAccessException ex) {
			outcome = "ACCESS";
			detail = describe(ex);
		}
		catch (RuntimeException ex) {
			outcome = "ERROR";
			detail = describe(ex);
			unexpected("acquire " + holdId, ex);
		}
		finally {
			if (handle != null) {
				this.inspector.count(key, kind, false, 1);
			}
			this.inspector.count(key, kind, true, -1);
		}
		long end = System.currentTimeMillis();
		if (handle == null) {
			record(new Attempt(holdId, this.node, key, kind, contended, waitMillis, start, end, outcome, 0, 0, 0, "-",
					false, "-", detail));
			if (outcome.equals("TIMEOUT")) {
				if (contended) {
					recordState(holdId, key);
				}
				lookForOrphans(holdId, key, kind);
			}
			return;
		}
		Hold hold = new Hold(handle, request);
		try {
			section.run(hold);
		}
		catch (RuntimeException ex) {
			unexpected("section of " + holdId + " (harness)", ex);
		}
		hold.isHeld();
		long close = System.currentTimeMillis();
		String release = "OK";
		try {
			handle.close();
		}
		catch (LockLostException ex) {
			release = "LOST";
			hold.told = true;
		}
		catch (LockAccessException ex) {
			release = "ACCESS";
			detail = describe(ex);
		}
		catch (RuntimeException ex) {
			release = "ERROR";
			detail = describe(ex);
			unexpected("release " + holdId, ex);
		}
		finally {
			this.inspector.count(key, kind, false, -1);
		}
		record(new Attempt(holdId, this.node, key, kind, contended, waitMillis, start, end, outcome,
				handle.fencingToken(), close, System.currentTimeMillis(), release, hold.told, hold.reentry, detail));
	}

	private void lookForOrphans(String holdId, String key, String kind) throws InterruptedException {
		long seen = System.currentTimeMillis();
		Map<String, String> orphans;
		try {
			orphans = this.inspector.orphans(key, kind, NemesisSettings.ORPHAN_PERSISTENCE.toMillis());
		}
		catch (RuntimeException ex) {
			// Redis is down or restarting: nothing to learn now.
			return;
		}
		orphans.forEach((where, owner) -> record(new Orphan(holdId, this.node, key, seen, where + "=" + owner)));
	}

	private void recordState(String holdId, String key) {
		try {
			this.history
				.accept(new State(holdId, System.currentTimeMillis(), this.inspector.state(key, this.diagnostics))
					.format());
		}
		catch (RuntimeException ex) {
			// Redis is down or restarting: no evidence to add.
		}
	}

	void unexpected(String operation, Throwable ex) {
		String frames = Arrays.stream(ex.getStackTrace())
			.limit(6)
			.map(StackTraceElement::toString)
			.collect(Collectors.joining(" < "));
		String what = operation + ": " + describe(ex) + " at " + frames;
		this.history.accept(new Unexpected(this.node, System.currentTimeMillis(), what).format());
	}

	private void record(Attempt attempt) {
		this.history.accept(attempt.format());
	}

	private void record(Orphan orphan) {
		this.history.accept(orphan.format());
	}

	private static String describe(Throwable ex) {
		String cause = (ex.getCause() != null) ? " caused by " + ex.getCause().getClass().getSimpleName() : "";
		return ex.getClass().getSimpleName() + cause;
	}

	/** The work done under a lock. */
	interface Section {

		void run(Hold hold) throws InterruptedException;

	}

	/** A held lock, as the section sees it. */
	final class Hold {

		private final LockHandle handle;

		private final LockRequest request;

		private volatile boolean told;

		private volatile String reentry = "-";

		private Hold(LockHandle handle, LockRequest request) {
			this.handle = handle;
			this.request = request;
		}

		long token() {
			return this.handle.fencingToken();
		}

		/** Asks the handle; a {@code false} tells the holder its lock was lost. */
		boolean isHeld() {
			if (!this.handle.isHeld()) {
				this.told = true;
			}
			return !this.told;
		}

		/**
		 * Acquires the held lock again on the same thread, which must succeed at once
		 * with the same fencing token while the lock is held, and releases that.
		 */
		void reenter() {
			Optional<LockHandle> nested;
			try {
				nested = LockAttempts.this.template.tryLock(this.request.waitTime(Duration.ZERO));
			}
			catch (RuntimeException ex) {
				this.reentry = isHeld() ? "failed" : "lost";
				if (!(ex instanceof LockAccessException)) {
					unexpected("reentry", ex);
				}
				return;
			}
			if (nested.isEmpty()) {
				this.reentry = isHeld() ? "refused" : "lost";
				return;
			}
			boolean sameToken = nested.get().fencingToken() == token();
			try {
				nested.get().close();
			}
			catch (LockLostException | LockAccessException ex) {
				// Told by the outer hold's checks as well.
			}
			this.reentry = sameToken ? "ok" : (isHeld() ? "token" : "lost");
		}

	}

}
