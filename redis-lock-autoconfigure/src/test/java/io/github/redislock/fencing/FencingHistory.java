package io.github.redislock.fencing;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import org.jspecify.annotations.Nullable;

import io.github.redislock.StaleFencingTokenException;

/**
 * What the writers of a fenced-write fuzz sent and were told, and the rules it must obey;
 * violations are collected, each naming what broke it. Tokens come from a seeded
 * generator, as holders of a lock would get them: each write takes the next token issued,
 * then half of them send it as a fresh holder would (though another thread may overtake
 * it), three in eight send a token issued up to 40 grants earlier, as a holder that
 * paused would, and one in eight sends the thread's previous token again, as a holder
 * writing twice would.
 * <p>
 * The rules: a refusal names the resource, the token sent, and a highest token that is
 * greater, that was accepted for that resource, and that is no lower than any token the
 * refused thread saw accepted or reported for it before; no token lower than one a thread
 * saw accepted or reported for a resource is accepted after it; at the end, the highest
 * token sent to a resource was accepted and is its fence, and its value carries it.
 */
final class FencingHistory {

	/** How many grants a paused holder's token is behind at most. */
	private static final int PAUSE = 40;

	private final long seed;

	/** The last token issued, shared by the writers as a lock's grants would be. */
	private final AtomicLong issued = new AtomicLong();

	private final List<String> violations = Collections.synchronizedList(new ArrayList<>());

	private final Map<String, Set<Long>> sent = new ConcurrentHashMap<>();

	private final Map<String, Set<Long>> accepted = new ConcurrentHashMap<>();

	private final Map<String, LongAdder> acceptedWrites = new ConcurrentHashMap<>();

	private final Map<String, Set<Long>> reportedHighest = new ConcurrentHashMap<>();

	FencingHistory(long seed) {
		this.seed = seed;
	}

	/** A writer thread's view of the history; use one per thread. */
	Writer writer(int thread) {
		return new Writer(thread);
	}

	void violate(String format, Object... args) {
		this.violations.add(String.format(format, args));
	}

	/**
	 * Check a resource at the end.
	 * @param fence its fence, as stored
	 * @param value its value, which starts with the token that wrote it and a slash, or
	 * {@code null} when it carries no token (a counter)
	 */
	void checkEnd(String resource, @Nullable String fence, @Nullable String value) {
		Set<Long> sent = this.sent.getOrDefault(resource, Set.of());
		if (sent.isEmpty()) {
			return;
		}
		long highest = Collections.max(sent);
		Set<Long> accepted = this.accepted.getOrDefault(resource, Set.of());
		if (!accepted.contains(highest)) {
			violate("%s: the highest token sent, %d, was refused", resource, highest);
		}
		if (!Long.toString(highest).equals(fence)) {
			violate("%s: fence %s at the end, where %d was the highest token sent", resource, fence, highest);
		}
		if (value != null && !value.startsWith(highest + "/")) {
			violate("%s: holds %s at the end, where %d was the highest token sent", resource, value, highest);
		}
		Set<Long> neverAccepted = new HashSet<>(this.reportedHighest.getOrDefault(resource, Set.of()));
		neverAccepted.removeAll(accepted);
		if (!neverAccepted.isEmpty()) {
			violate("%s: refusals reported %s as the highest token, never accepted", resource, neverAccepted);
		}
	}

	long acceptedWrites(String resource) {
		LongAdder writes = this.acceptedWrites.get(resource);
		return (writes != null) ? writes.sum() : 0;
	}

	long acceptedWrites() {
		return this.acceptedWrites.values().stream().mapToLong(LongAdder::sum).sum();
	}

	List<String> violations() {
		return this.violations;
	}

	/** One writer thread: its tokens and what it saw of each resource's fence. */
	final class Writer {

		private final int thread;

		private final Random random;

		/** The highest token this thread saw accepted or reported, by resource. */
		private final Map<String, Long> floors = new HashMap<>();

		private long previous;

		private Writer(int thread) {
			this.thread = thread;
			this.random = new Random(FencingHistory.this.seed * 31 + thread);
		}

		/** Pick a resource for the next write, from the seeded generator. */
		int nextIndex(int resources) {
			return this.random.nextInt(resources);
		}

		/** Draw the next token and record that it is sent to the resource. */
		long nextToken(String resource) {
			long next = FencingHistory.this.issued.incrementAndGet();
			int kind = this.random.nextInt(8);
			long token = (kind < 4) ? next
					: (kind < 7) ? Math.max(0, next - 1 - this.random.nextInt(PAUSE)) : this.previous;
			this.previous = token;
			FencingHistory.this.sent.computeIfAbsent(resource, (key) -> ConcurrentHashMap.newKeySet()).add(token);
			return token;
		}

		void accepted(String resource, long token) {
			FencingHistory.this.accepted.computeIfAbsent(resource, (key) -> ConcurrentHashMap.newKeySet()).add(token);
			FencingHistory.this.acceptedWrites.computeIfAbsent(resource, (key) -> new LongAdder()).increment();
			long floor = this.floors.getOrDefault(resource, 0L);
			if (token < floor) {
				violate("thread %d: token %d accepted for %s after it saw token %d", this.thread, token, resource,
						floor);
			}
			this.floors.put(resource, Math.max(floor, token));
		}

		void refused(String resource, long token, StaleFencingTokenException ex, String reportedResource) {
			long floor = this.floors.getOrDefault(resource, 0L);
			if (!ex.getResource().equals(reportedResource) || ex.getToken() != token || ex.getHighestToken() <= token
					|| ex.getHighestToken() < floor) {
				violate("thread %d: refusal of token %d for %s (seen %d) reported %s", this.thread, token, resource,
						floor, ex.getMessage());
			}
			this.floors.put(resource, Math.max(floor, ex.getHighestToken()));
			FencingHistory.this.reportedHighest.computeIfAbsent(resource, (key) -> ConcurrentHashMap.newKeySet())
				.add(ex.getHighestToken());
		}

	}

}
