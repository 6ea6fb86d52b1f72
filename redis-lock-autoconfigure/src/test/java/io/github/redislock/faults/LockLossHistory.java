package io.github.redislock.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * What the nodes of the lock-loss nemesis test ({@link LockLossNemesisTests}) saw: one
 * tab-separated line per acquisition, tabs because lock names such as {@code "x (write)"}
 * hold spaces. Times are microseconds since the epoch from {@link Instant#now()}: the
 * machine's real-time clock, which every JVM of the machine and Redis's {@code TIME}
 * read, so that times of different nodes and fencing tokens (Redis's {@code TIME} at the
 * grant) compare directly.
 */
final class LockLossHistory {

	private LockLossHistory() {
	}

	/** Now, in microseconds since the epoch, on the clock Redis's {@code TIME} reads. */
	static long nowMicros() {
		return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
	}

	static List<Hold> read(List<Path> files) {
		List<Hold> holds = new ArrayList<>();
		for (Path file : files) {
			try {
				for (String line : Files.readAllLines(file)) {
					holds.add(Hold.parse(line));
				}
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
		return holds;
	}

	/**
	 * One acquisition and, when granted, its hold.
	 *
	 * @param holdId unique per acquisition: worker and iteration
	 * @param node the node (JVM) name
	 * @param name the lock name
	 * @param kind {@code X} exclusive, {@code F} fair, {@code R} read, {@code W} write
	 * @param leaseMillis the fixed lease, or 0 for a lease the watchdog renews
	 * @param caller {@code blocking} (LockTemplate), {@code async} (engine.acquireAsync)
	 * or {@code reactive} (ReactiveLockTemplate)
	 * @param waitMillis the wait time asked for
	 * @param callMicros when the acquisition was called
	 * @param grantedMicros when the caller had the grant in hand, else 0
	 * @param closeMicros when the caller began to release, else 0
	 * @param closedMicros when the release returned, else 0
	 * @param outcome {@code GRANTED}, {@code TIMEOUT}, {@code ACCESS}
	 * (LockAccessException) or {@code ERROR} (anything else, the acquisition never
	 * returning included)
	 * @param token the fencing token when granted, else 0
	 * @param serverMicros Redis's {@code TIME} read on a connection of its own right
	 * after the grant, or -1 when that failed (Redis down)
	 * @param release {@code OK}, {@code LOST} (LockLostException), {@code ACCESS},
	 * {@code ERROR}, or {@code -} when not granted
	 * @param told whether the holder was told the lock was lost: {@code isHeld()} false
	 * before the release, or a LockLostException from it
	 * @param detail the exception of a failed operation, or {@code -}
	 */
	record Hold(String holdId, String node, String name, String kind, long leaseMillis, String caller, long waitMillis,
			long callMicros, long grantedMicros, long closeMicros, long closedMicros, String outcome, long token,
			long serverMicros, String release, boolean told, String detail) {

		boolean granted() {
			return this.outcome.equals("GRANTED");
		}

		/**
		 * The resource the hold protects: exclusive and fair locks of a name share one
		 * key; the read and write locks of the name have keys of their own ({@code :rw}),
		 * and so do its permits ({@code :permits}).
		 */
		String resource() {
			return (isPermit() ? "permits '" : isReadWrite() ? "rw '" : "lock '") + this.name + "'";
		}

		boolean isPermit() {
			return this.kind.equals("P");
		}

		boolean isReadWrite() {
			return this.kind.equals("R") || this.kind.equals("W");
		}

		boolean conflictsWith(Hold other) {
			return resource().equals(other.resource()) && !(this.kind.equals("R") && other.kind.equals("R"))
					&& !isPermit();
		}

		String format() {
			return String.join("\t", this.holdId, this.node, this.name, this.kind, Long.toString(this.leaseMillis),
					this.caller, Long.toString(this.waitMillis), Long.toString(this.callMicros),
					Long.toString(this.grantedMicros), Long.toString(this.closeMicros),
					Long.toString(this.closedMicros), this.outcome, Long.toString(this.token),
					Long.toString(this.serverMicros), this.release, this.told ? "1" : "0",
					this.detail.replaceAll("\\s+", " "));
		}

		static Hold parse(String line) {
			String[] f = line.split("\t");
			return new Hold(f[0], f[1], f[2], f[3], Long.parseLong(f[4]), f[5], Long.parseLong(f[6]),
					Long.parseLong(f[7]), Long.parseLong(f[8]), Long.parseLong(f[9]), Long.parseLong(f[10]), f[11],
					Long.parseLong(f[12]), Long.parseLong(f[13]), f[14], f[15].equals("1"), f[16]);
		}

		@Override
		public String toString() {
			String lease = (this.leaseMillis > 0) ? "lease " + this.leaseMillis + " ms" : "watchdog";
			return this.holdId + " " + this.kind + " " + this.caller + " '" + this.name + "' (" + lease + ", wait "
					+ this.waitMillis + " ms) called " + this.callMicros + " " + this.outcome
					+ (granted() ? " at " + this.grantedMicros + " token " + this.token + " TIME after "
							+ this.serverMicros + ", held until " + this.closeMicros + ", release " + this.release
							+ " at " + this.closedMicros + (this.told ? ", told lost" : "") : "")
					+ (this.detail.equals("-") ? "" : " (" + this.detail + ")");
		}

	}

}
