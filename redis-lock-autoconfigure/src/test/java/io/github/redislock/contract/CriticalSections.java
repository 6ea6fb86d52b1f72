package io.github.redislock.contract;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

/**
 * Records the critical sections run under each lock, from the moment the lock was granted
 * to the moment its holder began to release it, so that a test can tell whether two
 * holders of one lock ever overlapped. All nodes of a test live in one JVM, so one clock
 * orders every section. A gauge of the threads inside each lock catches an overlap as it
 * happens; the recorded intervals allow leaving out the grants later reported lost.
 * Sections of readers ({@link #enterShared}) may overlap each other, never a writer's.
 */
public final class CriticalSections {

	private final Map<String, AtomicInteger> inside = new ConcurrentHashMap<>();

	private final Map<String, AtomicInteger> maxInside = new ConcurrentHashMap<>();

	private final ConcurrentLinkedQueue<Section> sections = new ConcurrentLinkedQueue<>();

	/**
	 * Called by a holder right after it was granted the lock.
	 * @param key the lock name
	 * @param node the node that holds it
	 * @param fencingToken the grant's token
	 * @return the section, to {@linkplain #exit(Section) exit}
	 */
	public Section enter(String key, Object node, long fencingToken) {
		return enter(key, node, fencingToken, false);
	}

	/**
	 * Called by a reader right after it was granted a read lock, which other readers may
	 * hold at the same time.
	 * @param key the lock name
	 * @param node the node that holds it
	 * @return the section, to {@linkplain #exit(Section) exit}
	 */
	public Section enterShared(String key, Object node) {
		return enter(key, node, 0, true);
	}

	private Section enter(String key, Object node, long fencingToken, boolean shared) {
		int now = this.inside.computeIfAbsent(key, (name) -> new AtomicInteger()).incrementAndGet();
		this.maxInside.computeIfAbsent(key, (name) -> new AtomicInteger()).accumulateAndGet(now, Math::max);
		return new Section(key, node, fencingToken, shared, System.nanoTime());
	}

	/**
	 * Called by the holder before it releases the lock; a second call does nothing, so
	 * that a publisher may exit both when it terminates and when it is cancelled.
	 * @param section what {@link #enter} returned
	 */
	public void exit(Section section) {
		if (!section.exited.compareAndSet(false, true)) {
			return;
		}
		section.endNanos = System.nanoTime();
		this.inside.get(section.key).decrementAndGet();
		this.sections.add(section);
	}

	/**
	 * How many threads were inside the lock's sections at once, at most, readers
	 * included.
	 * @param key the lock name
	 * @return the maximum
	 */
	public int maxInside(String key) {
		AtomicInteger max = this.maxInside.get(key);
		return (max != null) ? max.get() : 0;
	}

	/**
	 * How many sections of the lock were completed.
	 * @param key the lock name
	 * @return the count
	 */
	public long entries(String key) {
		return this.sections.stream().filter((section) -> section.key.equals(key)).count();
	}

	/**
	 * How many sections of the lock began after the given time.
	 * @param key the lock name
	 * @param nanos a {@link System#nanoTime()} reading
	 * @return the count
	 */
	public long entriesSince(String key, long nanos) {
		return this.sections.stream()
			.filter((section) -> section.key.equals(key) && section.startNanos - nanos > 0)
			.count();
	}

	/**
	 * How often the lock passed from a holder on one node to a holder on another.
	 * @param key the lock name
	 * @return the count
	 */
	public int nodeChanges(String key) {
		List<Section> ordered = ofKey(key);
		int changes = 0;
		for (int i = 1; i < ordered.size(); i++) {
			if (ordered.get(i).node != ordered.get(i - 1).node) {
				changes++;
			}
		}
		return changes;
	}

	/**
	 * How many sections ended with their grant reported lost.
	 * @return the count
	 */
	public long lostCount() {
		return this.sections.stream().filter((section) -> section.lost).count();
	}

	/**
	 * Pairs of sections of one lock that overlapped in time, other than two readers',
	 * described.
	 * @param includeLost whether sections whose grant was reported lost count
	 * @return the overlapping pairs
	 */
	public List<String> overlaps(boolean includeLost) {
		List<String> overlaps = new ArrayList<>();
		for (String key : keys()) {
			List<Section> ordered = ofKey(key).stream().filter((section) -> includeLost || !section.lost).toList();
			for (int i = 0; i < ordered.size(); i++) {
				Section first = ordered.get(i);
				for (int j = i + 1; j < ordered.size() && ordered.get(j).startNanos < first.endNanos; j++) {
					if (!first.shared || !ordered.get(j).shared) {
						overlaps.add(first + " overlaps " + ordered.get(j));
					}
				}
			}
		}
		return overlaps;
	}

	/**
	 * Sections whose fencing token was not greater than their predecessor's, in the order
	 * the exclusive sections of each lock began, described. Sections are never reentrant;
	 * a grant handed between threads of a node carries a token of its own too.
	 * @param includeLost whether sections whose grant was reported lost count
	 * @return the inversions
	 */
	public List<String> tokenInversions(boolean includeLost) {
		List<String> inversions = new ArrayList<>();
		for (String key : keys()) {
			List<Section> ordered = ofKey(key).stream()
				.filter((section) -> !section.shared && (includeLost || !section.lost))
				.toList();
			for (int i = 1; i < ordered.size(); i++) {
				if (ordered.get(i).fencingToken <= ordered.get(i - 1).fencingToken) {
					inversions.add(ordered.get(i - 1) + " then " + ordered.get(i));
				}
			}
		}
		return inversions;
	}

	private List<String> keys() {
		return this.sections.stream().map((section) -> section.key).distinct().sorted().toList();
	}

	private List<Section> ofKey(String key) {
		return this.sections.stream()
			.filter((section) -> section.key.equals(key))
			.sorted(Comparator.comparingLong((section) -> section.startNanos))
			.collect(Collectors.toList());
	}

	/** One critical section: which lock, on which node, with which token, when. */
	public static final class Section {

		private final String key;

		private final Object node;

		private final long fencingToken;

		private final boolean shared;

		private final long startNanos;

		private final AtomicBoolean exited = new AtomicBoolean();

		private volatile long endNanos;

		private volatile boolean lost;

		private Section(String key, Object node, long fencingToken, boolean shared, long startNanos) {
			this.key = key;
			this.node = node;
			this.fencingToken = fencingToken;
			this.shared = shared;
			this.startNanos = startNanos;
		}

		/** Marks the grant as reported lost by its release. */
		public void lost() {
			this.lost = true;
		}

		@Override
		public String toString() {
			return "[" + this.key + (this.shared ? " read" : " token " + this.fencingToken) + (this.lost ? " lost" : "")
					+ " from " + this.startNanos + " to " + this.endNanos + "]";
		}

	}

}
