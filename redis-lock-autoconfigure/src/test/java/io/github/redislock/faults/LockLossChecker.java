package io.github.redislock.faults;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

import io.github.redislock.faults.LockLossHistory.Hold;
import io.github.redislock.faults.Nemesis.Fault;

/**
 * Checks the history of a lock-loss nemesis run against what the locks promise, and says
 * which promise broke with the holds that show it. A resource is the key the holds share:
 * the exclusive and fair locks of a name are one, the read/write lock of the name another
 * ({@link Hold#resource()}).
 * <ul>
 * <li>{@code token-order}: a hold granted before another was even asked for has the lower
 * fencing token (tokens are Redis's clock when Redis granted, or below the clock at a
 * check when a grant passed between threads of a JVM, so no loss excuses this); only a
 * later hold told of its loss is excused, as its token is the one that lies;</li>
 * <li>{@code token-bound}: a token is at most Redis's {@code TIME} read right after its
 * grant: a token from the future was made up. A token may be older than the acquisition:
 * a grant passed on from a thread of the same JVM keeps counting from its own;</li>
 * <li>{@code duplicate-token}: two grants of one resource with one token;</li>
 * <li>{@code loss-untold}: two conflicting holds overlapped and the earlier one (the
 * lower token) was not told its lock was lost;</li>
 * <li>{@code overlap-without-cause}: two conflicting holds overlapped, the earlier was
 * told, yet between its grant and the later grant no fault deleted its key and its lease
 * could not have run out;</li>
 * <li>for permits, the same two rules when a grant made more than
 * {@link LockLossSettings#PERMIT_LIMIT} holds of a name overlap: each of the earliest
 * holds beyond the limit, by token, must have been told and excused, counting holders
 * told of a loss as holders until they closed;</li>
 * <li>{@code after-faults}: from {@link LockLossSettings#SETTLE} after the last fault, an
 * acquisition with the full wait not granted, or a hold lost or not released
 * cleanly;</li>
 * <li>{@code unexpected}: an exception no lock operation may throw, or one that never
 * returned.</li>
 * </ul>
 */
final class LockLossChecker {

	/** Slack for a lease that ends in Redis's milliseconds against tokens in micros. */
	private static final long LAPSE_SLACK_MICROS = 2000;

	private final List<Hold> holds;

	private final List<Fault> faults;

	private final long settledMicros;

	private final Map<String, List<String>> violations = new LinkedHashMap<>();

	private final Map<String, Long> counts = new TreeMap<>();

	LockLossChecker(List<Hold> holds, List<Fault> faults, long healedMillis) {
		this.holds = holds;
		this.faults = faults;
		this.settledMicros = (healedMillis + LockLossSettings.SETTLE.toMillis()) * 1000;
	}

	Map<String, List<String>> check() {
		Map<String, List<Hold>> byResource = this.holds.stream()
			.filter(Hold::granted)
			.collect(Collectors.groupingBy(Hold::resource, TreeMap::new, Collectors.toList()));
		byResource.values().forEach(this::checkTokenOrder);
		byResource.values().forEach(this::checkOverlaps);
		for (Hold hold : this.holds) {
			checkTokenBound(hold);
			checkAfterFaults(hold);
			if (hold.outcome().equals("ERROR") || hold.release().equals("ERROR")) {
				violation("unexpected", hold.toString());
			}
		}
		return this.violations;
	}

	/**
	 * In the order holds were asked for, each token must exceed the tokens of every hold
	 * granted before the ask.
	 */
	private void checkTokenOrder(List<Hold> resource) {
		List<Hold> byCall = resource.stream().sorted(Comparator.comparingLong(Hold::callMicros)).toList();
		List<Hold> byGrant = resource.stream().sorted(Comparator.comparingLong(Hold::grantedMicros)).toList();
		Map<Long, Hold> byToken = new HashMap<>();
		Hold highest = null;
		int granted = 0;
		for (Hold later : byCall) {
			while (granted < byGrant.size() && byGrant.get(granted).grantedMicros() < later.callMicros()) {
				Hold earlier = byGrant.get(granted++);
				if (highest == null || earlier.token() > highest.token()) {
					highest = earlier;
				}
			}
			Hold same = byToken.putIfAbsent(later.token(), later);
			if (same != null) {
				violation("duplicate-token", same.resource() + ": " + same + " and " + later);
			}
			if (highest != null && later.token() <= highest.token()) {
				if (later.told()) {
					count("token below an earlier grant's, excused as told lost");
				}
				else {
					violation("token-order", later.resource() + ": " + later + " asked for after " + highest
							+ " was granted, yet got a token no higher");
				}
			}
		}
	}

	private void checkTokenBound(Hold hold) {
		if (!hold.granted()) {
			return;
		}
		if (hold.serverMicros() >= 0 && hold.token() > hold.serverMicros()) {
			violation("token-bound", "token ahead of Redis's TIME read after the grant by "
					+ (hold.token() - hold.serverMicros()) + " µs: " + hold);
		}
		if (hold.token() > hold.grantedMicros()) {
			violation("token-bound", "token ahead of the clock when the grant was in hand by "
					+ (hold.token() - hold.grantedMicros()) + " µs: " + hold);
		}
	}

	/**
	 * Conflicting holds of a resource that overlapped, each pair judged once; for
	 * permits, the holds beyond the limit at each grant.
	 */
	private void checkOverlaps(List<Hold> resource) {
		List<Hold> byGrant = resource.stream().sorted(Comparator.comparingLong(Hold::grantedMicros)).toList();
		List<Hold> open = new ArrayList<>();
		for (Hold hold : byGrant) {
			open.removeIf((other) -> other.closeMicros() <= hold.grantedMicros());
			if (hold.isPermit()) {
				checkPermitLimit(open, hold);
				open.add(hold);
				continue;
			}
			for (Hold other : open) {
				if (hold.conflictsWith(other)) {
					judgeOverlap((other.token() < hold.token()) ? other : hold,
							(other.token() < hold.token()) ? hold : other);
				}
			}
			open.add(hold);
		}
	}

	/**
	 * With the given grant, more holds than the limit may be open: the earliest of them
	 * beyond the limit, by token, are the ones Redis must have lost.
	 */
	private void checkPermitLimit(List<Hold> open, Hold granted) {
		int over = open.size() + 1 - LockLossSettings.PERMIT_LIMIT;
		if (over <= 0) {
			return;
		}
		count("grants of a permit with more than the limit open, judged");
		open.stream()
			.sorted(Comparator.comparingLong(Hold::token))
			.limit(over)
			.forEach((earlier) -> judgeOverlap(earlier, granted));
	}

	private void judgeOverlap(Hold earlier, Hold later) {
		String pair = earlier.resource() + ": " + earlier + " overlapped " + later;
		if (!earlier.told()) {
			violation("loss-untold", pair);
		}
		else if (keyLostBetween(earlier, later)) {
			count("overlaps excused: key deleted, flushed or restarted away");
		}
		else if (later.token() - earlier.token() >= leaseMicros(earlier) - LAPSE_SLACK_MICROS) {
			count("overlaps excused: lease ran out");
		}
		else {
			violation("overlap-without-cause",
					pair + "; no fault lost the key between the grants " + "and the lease had not run out");
		}
	}

	/**
	 * Whether a fault that loses keys struck after the earlier grant (its token is
	 * Redis's clock then) and before the later one.
	 */
	private boolean keyLostBetween(Hold earlier, Hold later) {
		long from = Math.min(earlier.token(), earlier.grantedMicros());
		return this.faults.stream()
			.anyMatch((fault) -> fault.dataLoss() && fault.startMillis() * 1000 <= later.grantedMicros()
					&& fault.endMillis() * 1000 + 999 >= from);
	}

	private static long leaseMicros(Hold hold) {
		return ((hold.leaseMillis() > 0) ? hold.leaseMillis() : LockLossSettings.WATCHDOG_LEASE.toMillis()) * 1000;
	}

	private void checkAfterFaults(Hold hold) {
		if (hold.callMicros() < this.settledMicros) {
			return;
		}
		String since = (hold.callMicros() - this.settledMicros) / 1000 + " ms after the faults settled: ";
		if (hold.waitMillis() == LockLossSettings.QUIET_WAIT.toMillis() && !hold.granted()) {
			violation("after-faults", since + "not granted within the wait: " + hold);
		}
		else if (hold.granted() && (hold.told() || !hold.release().equals("OK"))) {
			violation("after-faults", since + "lost or not released cleanly: " + hold);
		}
	}

	private void violation(String rule, String evidence) {
		this.violations.computeIfAbsent(rule, (name) -> new ArrayList<>()).add(evidence);
	}

	private void count(String what) {
		this.counts.merge(what, 1L, Long::sum);
	}

	/** What happened in the run, to show it exercised what it claims to. */
	String summary() {
		Map<String, Long> events = new TreeMap<>(this.counts);
		for (Hold hold : this.holds) {
			events.merge(hold.caller() + " " + hold.kind() + " " + hold.outcome(), 1L, Long::sum);
			if (hold.granted()) {
				events.merge("release " + hold.release(), 1L, Long::sum);
				events.merge("told lost", hold.told() ? 1L : 0L, Long::sum);
			}
		}
		StringBuilder summary = new StringBuilder("events: " + events + System.lineSeparator() + "faults:");
		this.faults.forEach((fault) -> summary.append(System.lineSeparator()).append("  ").append(fault));
		return summary.append(System.lineSeparator())
			.append("checked strictly from ")
			.append(this.settledMicros / 1000)
			.toString();
	}

}
