package io.github.redislock.samples.flashsale.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The runs of the scheduled sales report found in the instances' logs, to show that each
 * period's report ran on one instance only.
 *
 * @param byPeriod the names of the instances that ran the report, by period
 * @author redis-lock
 */
record SalesReportRuns(Map<String, List<String>> byPeriod) {

	private static final Pattern RUN = Pattern.compile("Sales report at (\\S+) by instance (\\S+):");

	/**
	 * Find the runs in the logs.
	 * @param logs the instances' logs
	 * @return the runs
	 */
	static SalesReportRuns of(List<String> logs) {
		Map<String, List<String>> byPeriod = new TreeMap<>();
		for (String log : logs) {
			Matcher matcher = RUN.matcher(log);
			while (matcher.find()) {
				byPeriod.computeIfAbsent(matcher.group(1), (period) -> new ArrayList<>()).add(matcher.group(2));
			}
		}
		return new SalesReportRuns(byPeriod);
	}

	/**
	 * Describe the runs in one line.
	 * @param cron the cron expression the instances ran the report with
	 * @return the description
	 */
	String describe(String cron) {
		String schedule = "Sales report, scheduled on both instances by cron \"" + cron + "\": ";
		if (this.byPeriod.isEmpty()) {
			return schedule + "no run yet";
		}
		Map<String, Long> byInstance = this.byPeriod.values()
			.stream()
			.flatMap(List::stream)
			.collect(Collectors.groupingBy((name) -> name, TreeMap::new, Collectors.counting()));
		List<String> twice = this.byPeriod.entrySet()
			.stream()
			.filter((entry) -> entry.getValue().size() > 1)
			.map(Map.Entry::getKey)
			.toList();
		String instances = byInstance.entrySet()
			.stream()
			.map((entry) -> entry.getKey() + " " + entry.getValue())
			.collect(Collectors.joining(", "));
		return schedule + this.byPeriod.size() + " runs, by " + instances + "; "
				+ (twice.isEmpty() ? "never twice at the same time" : "twice at " + String.join(", ", twice));
	}

}
