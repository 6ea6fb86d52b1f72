package io.github.redislock.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Where the hot key's time goes: the measured critical sections of every JVM merged on
 * one time line in the order they were granted, and what lies between them. A gap runs
 * from the end of one section to the grant of the next: a hand-over gap when the next
 * holder is in the same JVM, a switch gap when it is in the other one. What the lock adds
 * to the critical section is in the gaps, and in how much longer the sections themselves
 * take under contention than alone (their commands queue behind the lock's in Redis and
 * on the cores). A section granted before an earlier one ended is an overlap, which a
 * lock must never let happen.
 */
final class LockTimeline {

	private LockTimeline() {
	}

	/** One critical section, and the JVM it ran in: its index in the list of JVMs. */
	private record Section(long granted, long sectionEnd, int jvm) {

	}

	/**
	 * Put the time line's figures.
	 * @param perJvm the sections of each JVM, this process's first
	 * @param window the measured window the sections were granted in
	 */
	static void writeTo(List<HeldSections> perJvm, Duration window, Figures figures) {
		List<Section> sections = new ArrayList<>();
		for (int jvm = 0; jvm < perJvm.size(); jvm++) {
			HeldSections held = perJvm.get(jvm);
			for (int i = 0; i < held.size(); i++) {
				sections.add(new Section(held.granted(i), held.sectionEnd(i), jvm));
			}
		}
		sections.sort(Comparator.comparingLong(Section::granted));
		long heldNanos = 0;
		long overlaps = 0;
		long latestEnd = Long.MIN_VALUE;
		Gaps handOvers = new Gaps();
		Gaps switches = new Gaps();
		Section previous = null;
		for (Section section : sections) {
			heldNanos += section.sectionEnd() - section.granted();
			if (section.granted() < latestEnd) {
				overlaps++;
			}
			latestEnd = Math.max(latestEnd, section.sectionEnd());
			if (previous != null) {
				long gap = section.granted() - previous.sectionEnd();
				((section.jvm() == previous.jvm()) ? handOvers : switches).add(gap);
			}
			previous = section;
		}
		figures.put("sections", sections.size())
			.put("sectionMeanMicros", sections.isEmpty() ? 0 : heldNanos / 1e3 / sections.size())
			.put("lockBusyShare", (double) heldNanos / window.toNanos())
			.put("switchesPerThousand", sections.isEmpty() ? 0 : switches.samples.size() * 1000.0 / sections.size())
			.put("overlaps", overlaps);
		handOvers.writeTo("handOverGap", figures);
		switches.writeTo("switchGap", figures);
	}

	/** The gaps of one kind: their durations, and their sum for the mean. */
	private static final class Gaps {

		private final Samples samples = new Samples();

		private long sumNanos;

		void add(long nanos) {
			this.samples.add(nanos);
			this.sumNanos += nanos;
		}

		/** The mean, p50 and p99 in µs, left out when there were no such gaps. */
		void writeTo(String prefix, Figures figures) {
			if (this.samples.size() > 0) {
				figures.put(prefix + "MeanMicros", this.sumNanos / 1e3 / this.samples.size())
					.put(prefix + "P50Micros", this.samples.percentile(0.50) / 1e3)
					.put(prefix + "P99Micros", this.samples.percentile(0.99) / 1e3);
			}
		}

	}

}
