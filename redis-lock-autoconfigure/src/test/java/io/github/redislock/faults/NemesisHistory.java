package io.github.redislock.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the nodes of the nemesis test saw, one line per event, written by each node to a
 * file of its own and read back by the checker. Times are wall-clock milliseconds, the
 * same clock on every JVM of the machine and in Redis.
 *
 * @param attempts every acquisition, with what became of it
 * @param orphans grants of a node's own that blocked one of its timed-out acquisitions
 * @param states the lock's state when a hot-key acquisition timed out
 * @param unexpected exceptions no lock operation may throw
 * @param instances the instance id of each node's engine, by node name
 */
record NemesisHistory(List<Attempt> attempts, List<Orphan> orphans, List<State> states, List<Unexpected> unexpected,
		Map<String, String> instances) {

	static NemesisHistory read(List<Path> files) {
		List<Attempt> attempts = new ArrayList<>();
		List<Orphan> orphans = new ArrayList<>();
		List<State> states = new ArrayList<>();
		List<Unexpected> unexpected = new ArrayList<>();
		Map<String, String> instances = new LinkedHashMap<>();
		for (Path file : files) {
			try {
				for (String line : Files.readAllLines(file)) {
					String[] fields = line.split(" ");
					switch (fields[0]) {
						case "A" -> attempts.add(Attempt.parse(fields));
						case "O" -> orphans.add(Orphan.parse(fields));
						case "S" -> states.add(State.parse(fields));
						case "U" -> unexpected.add(Unexpected.parse(fields));
						case "I" -> instances.put(fields[1], fields[2]);
						default -> throw new IllegalStateException("Unknown history line in " + file + ": " + line);
					}
				}
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
		return new NemesisHistory(attempts, orphans, states, unexpected, instances);
	}

	/**
	 * Names the node of each owner token in a text: {@code n2:57} rather than
	 * {@code 9f93...:57}.
	 */
	String withNodeNames(String text) {
		String named = text;
		for (Map.Entry<String, String> instance : this.instances.entrySet()) {
			named = named.replace(instance.getValue() + ":", instance.getKey() + ":");
		}
		return named.replace('_', ' ');
	}

	/** Makes free text one field: no spaces, bounded length. */
	static String field(String text) {
		String field = (text != null && !text.isEmpty()) ? text.replaceAll("\\s+", "_") : "-";
		return (field.length() > 1000) ? field.substring(0, 1000) : field;
	}

	/**
	 * One acquisition and, when granted, its hold.
	 *
	 * @param holdId unique per acquisition: node, thread and iteration
	 * @param node the node name
	 * @param key the lock name
	 * @param kind {@code X} exclusive, {@code L} exclusive with a fixed lease, {@code F}
	 * fair, {@code R} read, {@code W} write
	 * @param contended whether other threads lock the same name (a hot key) rather than
	 * only this thread
	 * @param waitMillis the wait time asked for
	 * @param startMillis when the acquisition was called
	 * @param endMillis when it returned
	 * @param outcome {@code GRANTED}, {@code TIMEOUT}, {@code ACCESS}
	 * (LockAccessException) or {@code ERROR}
	 * @param token the fencing token when granted, else 0
	 * @param closeMillis when the handle was closed, else 0
	 * @param closedMillis when closing returned, else 0
	 * @param release {@code OK}, {@code LOST} (LockLostException), {@code ACCESS},
	 * {@code ERROR}, or {@code -} when not granted
	 * @param told whether the holder was told its lock was lost: {@code isHeld()} false
	 * while it held the handle, or a LockLostException on close
	 * @param reentry what a reentrant acquisition inside the hold got: {@code -} none
	 * tried, {@code ok}, {@code refused} (nothing while the outer hold was still held),
	 * {@code failed} (an exception), {@code token} (another fencing token)
	 * @param detail the exception of a failed operation, or {@code -}
	 */
	record Attempt(String holdId, String node, String key, String kind, boolean contended, long waitMillis,
			long startMillis, long endMillis, String outcome, long token, long closeMillis, long closedMillis,
			String release, boolean told, String reentry, String detail) {

		boolean granted() {
			return this.outcome.equals("GRANTED");
		}

		/** When the hold ended, or the acquisition when nothing was granted. */
		long lastMillis() {
			return granted() ? this.closedMillis : this.endMillis;
		}

		String format() {
			return String.join(" ", "A", this.holdId, this.node, this.key, this.kind, this.contended ? "1" : "0",
					Long.toString(this.waitMillis), Long.toString(this.startMillis), Long.toString(this.endMillis),
					this.outcome, Long.toString(this.token), Long.toString(this.closeMillis),
					Long.toString(this.closedMillis), this.release, this.told ? "1" : "0", this.reentry,
					field(this.detail));
		}

		static Attempt parse(String[] f) {
			return new Attempt(f[1], f[2], f[3], f[4], f[5].equals("1"), Long.parseLong(f[6]), Long.parseLong(f[7]),
					Long.parseLong(f[8]), f[9], Long.parseLong(f[10]), Long.parseLong(f[11]), Long.parseLong(f[12]),
					f[13], f[14].equals("1"), f[15], f[16]);
		}

		@Override
		public String toString() {
			return this.holdId + " " + this.kind + " '" + this.key + "' wait " + this.waitMillis + " ms, ["
					+ this.startMillis + " -> " + this.endMillis + "] " + this.outcome
					+ (granted() ? " token " + this.token + ", closed [" + this.closeMillis + " -> " + this.closedMillis
							+ "] " + this.release + (this.told ? ", told lost" : "")
							+ (this.reentry.equals("-") ? "" : ", reentry " + this.reentry) : "")
					+ (this.detail.equals("-") ? "" : " (" + this.detail + ")");
		}

	}

	/**
	 * A grant of the node's own (its owner token starts with the node's instance id) that
	 * no thread of the node held, found when an acquisition of the same name timed out
	 * and still there {@link NemesisSettings#ORPHAN_PERSISTENCE} later.
	 *
	 * @param holdId the acquisition that timed out
	 * @param node the node name
	 * @param key the lock name
	 * @param seenMillis when it was first seen
	 * @param where the Redis key and the owner token found in it, with its time to live
	 */
	record Orphan(String holdId, String node, String key, long seenMillis, String where) {

		String format() {
			return String.join(" ", "O", this.holdId, this.node, this.key, Long.toString(this.seenMillis),
					field(this.where));
		}

		static Orphan parse(String[] f) {
			return new Orphan(f[1], f[2], f[3], Long.parseLong(f[4]), f[5]);
		}

	}

	/**
	 * The state of a hot lock, in Redis and in the node's engine, when an acquisition of
	 * it timed out.
	 *
	 * @param holdId the acquisition that timed out
	 * @param atMillis when the state was read
	 * @param state the description
	 */
	record State(String holdId, long atMillis, String state) {

		String format() {
			return String.join(" ", "S", this.holdId, Long.toString(this.atMillis), field(this.state));
		}

		static State parse(String[] f) {
			return new State(f[1], Long.parseLong(f[2]), f[3]);
		}

	}

	/**
	 * An exception a lock operation threw that its contract does not allow here.
	 *
	 * @param node the node name
	 * @param atMillis when
	 * @param what the operation, the exception and its first stack frames
	 */
	record Unexpected(String node, long atMillis, String what) {

		String format() {
			return String.join(" ", "U", this.node, Long.toString(this.atMillis), field(this.what));
		}

		static Unexpected parse(String[] f) {
			return new Unexpected(f[1], Long.parseLong(f[2]), f[3]);
		}

	}

}
