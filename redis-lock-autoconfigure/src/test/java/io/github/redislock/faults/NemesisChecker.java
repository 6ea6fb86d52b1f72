package io.github.redislock.faults;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.github.redislock.faults.FencedResource.Access;
import io.github.redislock.faults.Nemesis.Fault;
import io.github.redislock.faults.NemesisHistory.Attempt;
import io.github.redislock.faults.NemesisHistory.Orphan;
import io.github.redislock.faults.NemesisHistory.State;

/**
 * Checks a nemesis run against what the locks promise, and says which promise broke, with
 * the events that show it. Each rule allows what the faults excuse and nothing else:
 * <ul>
 * <li>{@code overlap}: two conflicting holders inside one critical section at once,
 * neither told its lock was lost, and no Redis data loss near either hold;</li>
 * <li>{@code stale-untold}: the resource refused a holder's write (or read) for a lower
 * fencing token, and the holder was never told its lock was lost;</li>
 * <li>{@code duplicate-token}: two grants of one name with the same fencing token;</li>
 * <li>{@code loss-without-cause}: a holder told its lock was lost although no fault that
 * can make a lease run out ({@link Fault#lapsing()}: latency, blackhole, pause, restart,
 * stopped shard, failover) came near its node during the hold, plus the time the engine
 * takes to notice. Connection cuts alone must cost no lease;</li>
 * <li>{@code refused-by-own-grant}: an acquisition timed out on a name nobody else locks,
 * or on a hot name while a grant of its own node that no thread held stood in the way;
 * unless its node was cut off, paused or slowed, or failed to release or acquire that
 * name, within a lease before;</li>
 * <li>{@code reentry}: a thread holding a lock was refused it again, failed, or got
 * another token;</li>
 * <li>{@code after-faults}: once faults stopped, an acquisition not granted within the
 * bound, or after the settling time a hold that failed in any way;</li>
 * <li>{@code unexpected}: an exception no lock operation may throw there.</li>
 * </ul>
 */
final class NemesisChecker {

	private static final int EXAMPLES = 8;

	private static final int MAX_FAULTS_SHOWN = 60;

	private final NemesisHistory history;

	private final List<Access> log;

	private final List<Fault> faults;

	private final long healMillis;

	private final Map<String, Attempt> attempts;

	private final Map<String, String> states;

	/** Acquisitions or releases that failed, by node and lock name. */
	private final Map<String, List<Attempt>> failures;

	private final Map<String, List<String>> violations = new LinkedHashMap<>();

	NemesisChecker(NemesisHistory history, List<Access> log, List<Fault> faults, long healMillis) {
		this.history = history;
		this.log = log;
		this.faults = faults;
		this.healMillis = healMillis;
		this.attempts = history.attempts()
			.stream()
			.collect(Collectors.toMap(Attempt::holdId, Function.identity(), (first, second) -> first));
		this.failures = history.attempts()
			.stream()
			.filter((attempt) -> attempt.outcome().equals("ACCESS") || attempt.release().equals("ACCESS"))
			.collect(Collectors.groupingBy((attempt) -> attempt.node() + " " + attempt.key()));
		this.states = history.states()
			.stream()
			.collect(Collectors.toMap(State::holdId, State::state, (first, second) -> first));
	}

	/**
	 * Runs every rule.
	 * @return the violations, by rule
	 */
	Map<String, List<String>> check() {
		checkResource();
		checkTokens();
		checkLosses();
		checkTimeouts();
		checkAfterFaults();
		for (Attempt attempt : this.history.attempts()) {
			if (List.of("refused", "failed", "token").contains(attempt.reentry())) {
				violation("reentry",
						"a reentrant acquisition was " + attempt.reentry() + " while the lock was held: " + attempt);
			}
		}
		this.history.unexpected()
			.forEach((unexpected) -> violation("unexpected",
					unexpected.node() + " at " + unexpected.atMillis() + ": " + unexpected.what().replace('_', ' ')));
		return this.violations;
	}

	private void checkResource() {
		for (Access access : this.log) {
			Attempt holder = this.attempts.get(access.holdId());
			if (holder == null) {
				continue;
			}
			if (access.op().equals("enter")) {
				for (String other : access.conflicts()) {
					Attempt inside = this.attempts.get(other);
					if (inside != null && !holder.told() && !inside.told() && !nearDataLoss(holder)
							&& !nearDataLoss(inside)) {
						violation("overlap", access.key() + " at " + access.timeMillis() + ": " + holder
								+ " entered while inside: " + inside);
					}
				}
			}
			else if (access.result().equals("refused") && !holder.told() && !nearDataLoss(holder)) {
				violation("stale-untold", access + ", holder never told: " + holder);
			}
			else if (access.result().equals("duplicate")) {
				violation("duplicate-token", access + " by " + holder);
			}
		}
	}

	private void checkTokens() {
		Map<String, Attempt> byToken = new HashMap<>();
		for (Attempt attempt : this.history.attempts()) {
			if (attempt.granted()) {
				Attempt other = byToken.putIfAbsent(attempt.key() + " " + attempt.token(), attempt);
				if (other != null) {
					violation("duplicate-token", "two grants with one token: " + other + " and " + attempt);
				}
			}
		}
	}

	private void checkLosses() {
		long notice = NemesisSettings.LEASE.plus(NemesisSettings.COMMAND_TIMEOUT).toMillis() + 1000;
		for (Attempt attempt : this.history.attempts()) {
			if (!attempt.granted() || !attempt.told()) {
				continue;
			}
			boolean fixedLeaseRanOut = attempt.kind().equals("L")
					&& attempt.closeMillis() - attempt.endMillis() > NemesisSettings.FIXED_LEASE.toMillis() - 500;
			if (!fixedLeaseRanOut
					&& !lapsingFaultNear(attempt.node(), attempt.startMillis(), attempt.closedMillis(), notice)) {
				violation("loss-without-cause", "told the lock was lost, with no fault that lets a lease run out "
						+ "near its node: " + attempt);
			}
		}
	}

	private void checkTimeouts() {
		Map<String, List<Orphan>> orphans = this.history.orphans()
			.stream()
			.collect(Collectors.groupingBy(Orphan::holdId));
		long lease = NemesisSettings.LEASE.toMillis();
		long before = lease + NemesisSettings.COMMAND_TIMEOUT.toMillis() + 1000;
		for (Attempt attempt : this.history.attempts()) {
			if (!attempt.outcome().equals("TIMEOUT")) {
				continue;
			}
			List<Orphan> found = orphans.getOrDefault(attempt.holdId(), List.of());
			if (attempt.contended() && found.isEmpty()) {
				continue;
			}
			if (lapsingFaultNear(attempt.node(), attempt.startMillis() - before, attempt.endMillis(), 0)
					|| failedNear(attempt, attempt.startMillis() - lease - 1000)) {
				continue;
			}
			String evidence = found.isEmpty() ? ""
					: "; in its way: " + found.stream()
						.map((orphan) -> orphan.where() + " seen at " + orphan.seenMillis())
						.collect(Collectors.joining(", "));
			violation("refused-by-own-grant",
					(attempt.contended() ? "" : "nobody else locks this name; ") + attempt + evidence);
		}
	}

	private void checkAfterFaults() {
		long settled = this.healMillis + NemesisSettings.SETTLE.toMillis();
		for (Attempt attempt : this.history.attempts()) {
			if (attempt.startMillis() >= settled) {
				if (!attempt.granted() || !attempt.release().equals("OK") || attempt.told()) {
					violation("after-faults", "settled " + (attempt.startMillis() - settled)
							+ " ms before, yet not granted and released cleanly: " + attempt + state(attempt));
				}
			}
			else if (attempt.startMillis() >= this.healMillis
					&& attempt.waitMillis() == NemesisSettings.QUIET_WAIT.toMillis()
					&& attempt.outcome().equals("TIMEOUT")) {
				violation("after-faults", "faults stopped " + (attempt.startMillis() - this.healMillis)
						+ " ms before, yet not granted within the bound: " + attempt + state(attempt));
			}
		}
	}

	/**
	 * Whether a fault that can make a lease run out hit the node (or Redis) during the
	 * interval, or ended less than the given time before it.
	 */
	private boolean lapsingFaultNear(String node, long fromMillis, long toMillis, long afterMillis) {
		return this.faults.stream()
			.anyMatch((fault) -> fault.lapsing() && fault.hits(node)
					&& fault.overlaps(fromMillis, toMillis, afterMillis));
	}

	/**
	 * Whether Redis lost its data during the hold, or so shortly before its end that the
	 * engine could not have noticed yet.
	 */
	private boolean nearDataLoss(Attempt attempt) {
		long notice = NemesisSettings.RENEW_INTERVAL.plus(NemesisSettings.COMMAND_TIMEOUT).toMillis() + 500;
		return this.faults.stream()
			.anyMatch(
					(fault) -> fault.dataLoss() && fault.overlaps(attempt.startMillis(), attempt.lastMillis(), notice));
	}

	/**
	 * Whether the node failed to acquire or release the same name since the given time,
	 * which may leave a grant in Redis until its lease runs out.
	 */
	private boolean failedNear(Attempt timedOut, long sinceMillis) {
		return this.failures.getOrDefault(timedOut.node() + " " + timedOut.key(), List.of())
			.stream()
			.anyMatch((other) -> other.lastMillis() >= sinceMillis && other.startMillis() <= timedOut.endMillis());
	}

	private String state(Attempt attempt) {
		String state = this.states.get(attempt.holdId());
		return (state != null) ? "; lock state then: " + state : "";
	}

	private void violation(String rule, String evidence) {
		this.violations.computeIfAbsent(rule, (name) -> new ArrayList<>()).add(this.history.withNodeNames(evidence));
	}

	/**
	 * Describes the violations for a failure message: counts, and a few examples of each
	 * rule.
	 */
	static String describe(Map<String, List<String>> violations) {
		StringBuilder description = new StringBuilder();
		violations.forEach((rule, list) -> {
			description.append(System.lineSeparator())
				.append(rule)
				.append(": ")
				.append(list.size())
				.append(" violation(s), for example:");
			list.stream()
				.limit(EXAMPLES)
				.forEach((evidence) -> description.append(System.lineSeparator()).append("  ").append(evidence));
		});
		return description.toString();
	}

	/**
	 * How many acquisitions and releases of the nodes a fault hit had been called and not
	 * returned when their connections were cut: at most one command each, on the wire or
	 * about to be.
	 */
	private long inFlight(Fault fault) {
		long cut = fault.endMillis();
		return this.history.attempts()
			.stream()
			.filter((attempt) -> fault.hits(attempt.node()))
			.filter((attempt) -> (attempt.startMillis() < cut && attempt.endMillis() >= cut)
					|| (attempt.granted() && attempt.closeMillis() < cut && attempt.closedMillis() >= cut))
			.count();
	}

	/** What happened in the run, to show it exercised what it claims to. */
	String summary() {
		Map<String, Long> counts = new TreeMap<>();
		for (Attempt attempt : this.history.attempts()) {
			counts.merge((attempt.contended() ? "hot " : "storm ") + attempt.outcome(), 1L, Long::sum);
			if (attempt.granted()) {
				counts.merge("release " + attempt.release(), 1L, Long::sum);
				counts.merge("told lost", attempt.told() ? 1L : 0L, Long::sum);
			}
		}
		for (Access access : this.log) {
			if (!access.conflicts().isEmpty()) {
				counts.merge("entries while a conflicting holder was inside", 1L, Long::sum);
			}
			if (!access.result().equals("ok")) {
				counts.merge("resource " + access.op() + " " + access.result(), 1L, Long::sum);
			}
		}
		counts.put("orphans seen", (long) this.history.orphans().size());
		StringBuilder summary = new StringBuilder("events: " + counts + System.lineSeparator() + "faults:");
		for (Fault fault : this.faults.subList(0, Math.min(this.faults.size(), MAX_FAULTS_SHOWN))) {
			summary.append(System.lineSeparator()).append("  ").append(fault);
			if (fault.cuts()) {
				summary.append(", lock calls of the node(s) in flight when cut: ").append(inFlight(fault));
			}
		}
		if (this.faults.size() > MAX_FAULTS_SHOWN) {
			summary.append(System.lineSeparator()).append("  ... ").append(this.faults.size()).append(" faults in all");
		}
		summary.append(System.lineSeparator()).append("healed at ").append(this.healMillis);
		return summary.toString();
	}

}
