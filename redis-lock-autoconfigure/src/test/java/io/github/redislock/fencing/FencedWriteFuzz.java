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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.data.redis.core.StringRedisTemplate;

import io.github.redislock.StaleFencingTokenException;

/**
 * Threads write a few resources with fencing tokens drawn from a seeded generator, as
 * holders of a lock would: each write takes the next token issued, then half of them send
 * it as a fresh holder would (though another thread may overtake it), three in eight send
 * a token issued up to 40 grants earlier, as a holder that paused would, and one in eight
 * sends the thread's previous token again, as a holder writing twice would. A reader
 * watches the values meanwhile. Resource {@code i} is written by {@code set} when
 * {@code i % 3 == 0}, by {@code put} when 1 and by {@code increment} when 2. Violations
 * of these rules are collected, each naming what broke it:
 * <ul>
 * <li>the stored value is always the one written by the highest token accepted so far:
 * the reader sees the tokens of each value never decrease, and each no higher than the
 * fence read after it, and at the end each value carries the highest token sent to it;
 * <li>a refusal names the resource, the token sent, and a highest token that is greater,
 * that was accepted for that resource, and that is no lower than any token the refused
 * thread saw accepted or reported for it before;
 * <li>no token lower than one a thread saw accepted or reported for a resource is
 * accepted after it;
 * <li>a counter ends at the number of increments accepted.
 * </ul>
 */
final class FencedWriteFuzz {

	private static final Log logger = LogFactory.getLog(FencedWriteFuzz.class);

	static final String SEED_PROPERTY = "redislock.fencing.seed";

	private static final int THREADS = 8;

	private static final int WRITES_PER_THREAD = 150;

	/** How many grants a paused holder's token is behind at most. */
	private static final int PAUSE = 40;

	private final FencedRedisOperations fenced;

	private final StringRedisTemplate redis;

	private final List<String> keys;

	private final long seed;

	/** The last token issued, shared by the writers as a lock's grants would be. */
	private final AtomicLong issued = new AtomicLong();

	private final List<String> violations = Collections.synchronizedList(new ArrayList<>());

	/** Tokens sent, tokens accepted and the number of writes accepted, by resource. */
	private final Map<String, Set<Long>> sent = new ConcurrentHashMap<>();

	private final Map<String, Set<Long>> accepted = new ConcurrentHashMap<>();

	private final Map<String, LongAdder> acceptedWrites = new ConcurrentHashMap<>();

	/** The highest tokens that refusals reported, by resource. */
	private final Map<String, Set<Long>> reportedHighest = new ConcurrentHashMap<>();

	FencedWriteFuzz(FencedRedisOperations fenced, StringRedisTemplate redis, List<String> keys, long seed) {
		this.fenced = fenced;
		this.redis = redis;
		this.keys = keys;
		this.seed = seed;
		keys.forEach((key) -> {
			this.sent.put(key, ConcurrentHashMap.newKeySet());
			this.accepted.put(key, ConcurrentHashMap.newKeySet());
			this.acceptedWrites.put(key, new LongAdder());
			this.reportedHighest.put(key, ConcurrentHashMap.newKeySet());
		});
	}

	/**
	 * Run the writers and the reader, then check the resources.
	 * @return the violations found, empty when none
	 */
	List<String> run() throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(THREADS + 1);
		AtomicBoolean writing = new AtomicBoolean(true);
		CountDownLatch start = new CountDownLatch(1);
		try {
			List<Future<?>> writers = new ArrayList<>();
			for (int i = 0; i < THREADS; i++) {
				int thread = i;
				writers.add(executor.submit(() -> write(thread, start)));
			}
			Future<?> reader = executor.submit(() -> read(writing));
			start.countDown();
			for (Future<?> writer : writers) {
				writer.get(60, TimeUnit.SECONDS);
			}
			writing.set(false);
			reader.get(10, TimeUnit.SECONDS);
		}
		finally {
			executor.shutdownNow();
		}
		checkFinalState();
		logger.info(String.format("%d fenced writes, %d accepted, with seed %d", THREADS * WRITES_PER_THREAD,
				this.acceptedWrites.values().stream().mapToLong(LongAdder::sum).sum(), this.seed));
		return this.violations;
	}

	private Void write(int thread, CountDownLatch start) throws InterruptedException {
		Random random = new Random(this.seed * 31 + thread);
		Map<String, Long> floors = new HashMap<>();
		long previous = 0;
		start.await();
		for (int i = 0; i < WRITES_PER_THREAD; i++) {
			int index = random.nextInt(this.keys.size());
			String key = this.keys.get(index);
			long next = this.issued.incrementAndGet();
			int kind = random.nextInt(8);
			long token = (kind < 4) ? next : (kind < 7) ? Math.max(0, next - 1 - random.nextInt(PAUSE)) : previous;
			previous = token;
			long floor = floors.getOrDefault(key, 0L);
			this.sent.get(key).add(token);
			try {
				writeOnce(index, key, token, thread + "/" + i);
				this.accepted.get(key).add(token);
				this.acceptedWrites.get(key).increment();
				if (token < floor) {
					violate("thread %d: token %d accepted for %s after it saw token %d", thread, token, key, floor);
				}
				floors.put(key, Math.max(floor, token));
			}
			catch (StaleFencingTokenException ex) {
				if (!ex.getResource().equals(key) || ex.getToken() != token || ex.getHighestToken() <= token
						|| ex.getHighestToken() < floor) {
					violate("thread %d: refusal of token %d for %s (seen %d) reported %s", thread, token, key, floor,
							ex.getMessage());
				}
				floors.put(key, Math.max(floor, ex.getHighestToken()));
				this.reportedHighest.get(key).add(ex.getHighestToken());
			}
		}
		return null;
	}

	private void writeOnce(int index, String key, long token, String writer) {
		String value = token + "/" + writer;
		switch (index % 3) {
			case 0 -> this.fenced.set(key, value, token);
			case 1 -> this.fenced.put(key, "value", value, token);
			default -> this.fenced.increment(key, 1, token);
		}
	}

	private Void read(AtomicBoolean writing) {
		Map<String, Long> last = new HashMap<>();
		do {
			for (int index = 0; index < this.keys.size(); index++) {
				String key = this.keys.get(index);
				String value = valueOf(index, key);
				if (value == null) {
					continue;
				}
				long token = Long.parseLong(value.substring(0, value.indexOf('/')));
				long fence = Long.parseLong(this.redis.opsForValue().get(FenceKeys.of(key)));
				long previous = last.getOrDefault(key, 0L);
				if (token < previous || fence < token) {
					violate("reader: %s holds %s after a value of token %d, with fence %d", key, value, previous,
							fence);
				}
				last.put(key, token);
			}
		}
		while (writing.get());
		return null;
	}

	/** The value with its writer's token, or null for a counter or an unwritten value. */
	private String valueOf(int index, String key) {
		return switch (index % 3) {
			case 0 -> this.redis.opsForValue().get(key);
			case 1 -> (String) this.redis.<String, String>opsForHash().get(key, "value");
			default -> null;
		};
	}

	private void checkFinalState() {
		for (int index = 0; index < this.keys.size(); index++) {
			String key = this.keys.get(index);
			if (this.sent.get(key).isEmpty()) {
				continue;
			}
			long highest = Collections.max(this.sent.get(key));
			if (!this.accepted.get(key).contains(highest)) {
				violate("%s: the highest token sent, %d, was refused", key, highest);
			}
			String fence = this.redis.opsForValue().get(FenceKeys.of(key));
			if (!Long.toString(highest).equals(fence)) {
				violate("%s: fence %s at the end, where %d was the highest token sent", key, fence, highest);
			}
			String value = valueOf(index, key);
			if (value != null && !value.startsWith(highest + "/")) {
				violate("%s: holds %s at the end, where %d was the highest token sent", key, value, highest);
			}
			if (index % 3 == 2) {
				String total = this.redis.opsForValue().get(key);
				if (!Long.toString(this.acceptedWrites.get(key).sum()).equals(total)) {
					violate("%s: counter at %s after %d accepted increments", key, total,
							this.acceptedWrites.get(key).sum());
				}
			}
			Set<Long> neverAccepted = new HashSet<>(this.reportedHighest.get(key));
			neverAccepted.removeAll(this.accepted.get(key));
			if (!neverAccepted.isEmpty()) {
				violate("%s: refusals reported %s as the highest token, never accepted", key, neverAccepted);
			}
		}
	}

	private void violate(String format, Object... args) {
		this.violations.add(String.format(format, args));
	}

}
