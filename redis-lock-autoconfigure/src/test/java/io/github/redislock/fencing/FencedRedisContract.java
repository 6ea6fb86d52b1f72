package io.github.redislock.fencing;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.github.redislock.StaleFencingTokenException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * The contract of {@link FencedRedisTemplate}, run on every topology: subclasses supply a
 * connection factory, new and empty for each test, and the resource keys.
 */
abstract class FencedRedisContract {

	private static final Log logger = LogFactory.getLog(FencedRedisContract.class);

	private RedisConnectionFactory connectionFactory;

	private FencedRedisTemplate fenced;

	private StringRedisTemplate redis;

	private String key;

	/** A connection factory to a Redis that holds no keys, closed by the subclass. */
	protected abstract RedisConnectionFactory connectionFactory();

	/**
	 * Resource keys for the concurrent writes, six or more: with and without hash tags,
	 * and on every node that serves slots.
	 */
	protected abstract List<String> keys();

	@BeforeEach
	void setUpTemplates() {
		this.connectionFactory = connectionFactory();
		this.fenced = new FencedRedisTemplate(this.connectionFactory);
		this.redis = new StringRedisTemplate(this.connectionFactory);
		this.key = keys().get(0);
	}

	@Test
	void higherTokenReplacesValueAndBecomesTheHighest() {
		this.fenced.set(this.key, "first", 5);
		this.fenced.set(this.key, "second", 7);
		assertThat(this.redis.opsForValue().get(this.key)).isEqualTo("second");
		assertThat(fence(this.key)).isEqualTo("7");
	}

	@Test
	void lowerTokenIsRefusedWithBothTokensAndWritesNothing() {
		this.fenced.set(this.key, "fresh", 7);
		assertThatExceptionOfType(StaleFencingTokenException.class)
			.isThrownBy(() -> this.fenced.set(this.key, "stale", 5))
			.satisfies((ex) -> {
				assertThat(ex.getResource()).isEqualTo(this.key);
				assertThat(ex.getToken()).isEqualTo(5);
				assertThat(ex.getHighestToken()).isEqualTo(7);
			})
			.withMessageContaining("fencing token 5 was refused")
			.withMessageContaining("seen token 7")
			.withMessageContaining("redo the work under a fresh lock");
		assertThat(this.redis.opsForValue().get(this.key)).isEqualTo("fresh");
		assertThat(fence(this.key)).isEqualTo("7");
	}

	@Test
	void equalTokenIsTheSameHolderWritingAgain() {
		this.fenced.set(this.key, "first", 7);
		this.fenced.set(this.key, "again", 7);
		assertThat(this.redis.opsForValue().get(this.key)).isEqualTo("again");
	}

	@Test
	void tokensAreComparedExactlyBeyondWhatADoubleHolds() {
		long twoToThe53 = 1L << 53;
		this.fenced.set(this.key, "higher", twoToThe53 + 1);
		assertThatExceptionOfType(StaleFencingTokenException.class)
			.isThrownBy(() -> this.fenced.set(this.key, "lower", twoToThe53));
		this.fenced.set(this.key, "highest", Long.MAX_VALUE);
		assertThatExceptionOfType(StaleFencingTokenException.class)
			.isThrownBy(() -> this.fenced.set(this.key, "lower", Long.MAX_VALUE - 1))
			.satisfies((ex) -> assertThat(ex.getHighestToken()).isEqualTo(Long.MAX_VALUE));
		assertThat(this.redis.opsForValue().get(this.key)).isEqualTo("highest");
	}

	@Test
	void tokenWithMoreDigitsIsHigher() {
		this.fenced.set(this.key, "first", 999);
		this.fenced.set(this.key, "second", 1000);
		assertThatExceptionOfType(StaleFencingTokenException.class)
			.isThrownBy(() -> this.fenced.set(this.key, "stale", 99));
		assertThat(this.redis.opsForValue().get(this.key)).isEqualTo("second");
	}

	@Test
	void negativeTokenIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.fenced.set(this.key, "value", -1))
			.withMessageContaining("-1");
		assertThat(this.redis.hasKey(this.key)).isFalse();
	}

	@Test
	void fenceLivesAsLongAsTheValue() {
		this.fenced.set(this.key, "expiring", Duration.ofSeconds(30), 5);
		assertThat(pttl(this.key)).isBetween(1L, 30_000L);
		assertThat(pttl(FenceKeys.of(this.key))).isBetween(1L, 30_000L);
		this.fenced.set(this.key, "lasting", 6);
		assertThat(pttl(this.key)).isEqualTo(-1);
		assertThat(pttl(FenceKeys.of(this.key))).isEqualTo(-1);
	}

	@Test
	void valueThatExpiredAcceptsAnyToken() {
		this.fenced.set(this.key, "expiring", Duration.ofMillis(50), 7);
		await().until(() -> !this.redis.hasKey(this.key) && !this.redis.hasKey(FenceKeys.of(this.key)));
		this.fenced.set(this.key, "anew", 5);
		assertThat(this.redis.opsForValue().get(this.key)).isEqualTo("anew");
	}

	@Test
	void hashFieldsShareOneFenceKeptOutsideTheHash() {
		this.fenced.put(this.key, "stock", "10", 7);
		assertThatExceptionOfType(StaleFencingTokenException.class)
			.isThrownBy(() -> this.fenced.putAll(this.key, Map.of("stock", "9", "price", "3"), 5));
		this.fenced.putAll(this.key, Map.of("stock", "8", "price", "4"), 8);
		assertThat(this.redis.<String, String>opsForHash().entries(this.key))
			.isEqualTo(Map.of("stock", "8", "price", "4"));
		assertThat(fence(this.key)).isEqualTo("8");
	}

	@Test
	void hashKeepsItsTimeToLiveAndItsFenceTakesIt() {
		this.fenced.put(this.key, "stock", "10", 7);
		this.redis.expire(this.key, Duration.ofSeconds(30));
		this.fenced.put(this.key, "stock", "9", 8);
		assertThat(pttl(this.key)).isBetween(1L, 30_000L);
		assertThat(pttl(FenceKeys.of(this.key))).isBetween(1L, 30_000L);
	}

	@Test
	void counterAddsAndReturnsItsNewValue() {
		assertThat(this.fenced.increment(this.key, 5, 1)).isEqualTo(5);
		assertThat(this.fenced.increment(this.key, -2, 2)).isEqualTo(3);
		assertThatExceptionOfType(StaleFencingTokenException.class)
			.isThrownBy(() -> this.fenced.increment(this.key, 1, 1))
			.satisfies((ex) -> assertThat(ex.getHighestToken()).isEqualTo(2));
		assertThat(this.redis.opsForValue().get(this.key)).isEqualTo("3");
	}

	@Test
	void incrementRunTwiceCountsOnceAndRepliesTheSameValue() {
		assertThat(this.fenced.increment(this.key, 5, 1, "call-1")).isEqualTo(5);
		assertThat(this.fenced.increment(this.key, 5, 1, "call-1")).isEqualTo(5);
		assertThat(this.redis.opsForValue().get(this.key)).isEqualTo("5");
		assertThat(this.fenced.increment(this.key, 5, 1, "call-2")).isEqualTo(10);
		assertThat(this.fenced.increment(this.key, 5, 1)).isEqualTo(15);
		assertThat(this.fenced.increment(this.key, 5, 1)).isEqualTo(20);
	}

	@Test
	void incrementRunAgainAfterANewerWriterIsNotRefusedAndAddsNothing() {
		assertThat(this.fenced.increment(this.key, 5, 1, "call-1")).isEqualTo(5);
		assertThat(this.fenced.increment(this.key, 2, 2)).isEqualTo(7);
		assertThat(this.fenced.increment(this.key, 5, 1, "call-1")).isEqualTo(5);
		assertThat(this.redis.opsForValue().get(this.key)).isEqualTo("7");
	}

	@Test
	void incrementRecordLastsAsLongAsTheCallMayBeSentAgain() {
		this.fenced.increment(this.key, 5, 1, "call-1");
		long timeout = ((LettuceConnectionFactory) this.connectionFactory).getTimeout();
		assertThat(pttl(FenceKeys.of(this.key) + ":incr:call-1")).isPositive().isLessThanOrEqualTo(timeout + 1000);
	}

	@Test
	void refusedIncrementRecordsNothing() {
		this.fenced.increment(this.key, 5, 2);
		assertThatExceptionOfType(StaleFencingTokenException.class)
			.isThrownBy(() -> this.fenced.increment(this.key, 1, 1, "call-1"));
		assertThat(this.redis.hasKey(FenceKeys.of(this.key) + ":incr:call-1")).isFalse();
	}

	@Test
	void incrementRecordKeepsALargeValueExact() {
		this.fenced.set(this.key, Long.toString((1L << 53) - 10), 1);
		assertThat(this.fenced.increment(this.key, 3, 1, "call-1")).isEqualTo((1L << 53) - 7);
		assertThat(this.fenced.increment(this.key, 3, 1, "call-1")).isEqualTo((1L << 53) - 7);
	}

	@Test
	void writeThatFailsLeavesTheFenceAsItWas() {
		this.fenced.set(this.key, "not a number", 5);
		assertThatExceptionOfType(DataAccessException.class).isThrownBy(() -> this.fenced.increment(this.key, 1, 9));
		assertThatExceptionOfType(DataAccessException.class)
			.isThrownBy(() -> this.fenced.put(this.key, "field", "value", 9));
		assertThat(fence(this.key)).isEqualTo("5");
		this.fenced.set(this.key, "6", 6);
		assertThat(this.fenced.increment(this.key, 1, 6)).isEqualTo(7);
	}

	@Test
	void deletedResourceKeepsItsFenceForTheRetention() {
		FencedRedisTemplate fenced = new FencedRedisTemplate(this.connectionFactory, Duration.ofSeconds(30));
		fenced.set(this.key, "value", 7);
		assertThat(fenced.delete(this.key, 7)).isTrue();
		assertThat(this.redis.hasKey(this.key)).isFalse();
		assertThat(pttl(FenceKeys.of(this.key))).isBetween(1L, 30_000L);
		assertThatExceptionOfType(StaleFencingTokenException.class)
			.isThrownBy(() -> fenced.set(this.key, "written back", 6));
		assertThatExceptionOfType(StaleFencingTokenException.class).isThrownBy(() -> fenced.delete(this.key, 6));
		assertThat(fenced.delete(this.key, 8)).isFalse();
		assertThat(this.redis.hasKey(this.key)).isFalse();
	}

	@Test
	void everyKeySharesItsSlotWithItsFence() {
		for (String key : keys()) {
			this.fenced.set(key, "value", 1);
			this.fenced.put(key + ":hash", "field", "value", 1);
			assertThat(fence(key)).isEqualTo("1");
		}
	}

	@Test
	void concurrentStaleAndFreshWritesKeepTheHighestTokensValue() throws Exception {
		long seed = Long.getLong(FencedWriteFuzz.SEED_PROPERTY, System.nanoTime());
		logger.info("Fenced writes with seed " + seed);
		List<String> violations = new FencedWriteFuzz(this.fenced, this.redis, keys(), seed).run();
		assertThat(violations)
			.as("violations with seed %d (repeat with -D%s=%d)", seed, FencedWriteFuzz.SEED_PROPERTY, seed)
			.isEmpty();
	}

	private String fence(String key) {
		return this.redis.opsForValue().get(FenceKeys.of(key));
	}

	private long pttl(String key) {
		return this.redis.getExpire(key, TimeUnit.MILLISECONDS);
	}

}
