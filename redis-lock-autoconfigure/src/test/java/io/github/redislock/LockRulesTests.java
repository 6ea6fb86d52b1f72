package io.github.redislock;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.github.redislock.LockRules.Violation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link LockRules}: each rule accepts its valid values, and for an invalid one
 * says what is wrong and what to do, without naming the value the way any one layer does.
 */
class LockRulesTests {

	@Test
	void keyIsNeitherNullNorBlankNorBeginsWithClosingBrace() {
		assertThat(LockRules.key("order:42")).isNull();
		assertThat(LockRules.key("a}")).isNull();
		assertThat(LockRules.key(null)).isEqualTo(
				new Violation("must not be null", "Give the name of the resource to lock, such as \"order:42\""));
		assertThat(LockRules.key(" ").problem()).isEqualTo("must not be blank");
		Violation brace = LockRules.key("}order");
		assertThat(brace.problem()).startsWith("must not begin with '}' but was \"}order\"")
			.contains("hash tag, which would be empty");
		assertThat(brace.action()).isEqualTo("Put some text before the '}'");
	}

	@Test
	void observationNameIsNeitherNullNorBlank() {
		assertThat(LockRules.observationName("OrderService.pay")).isNull();
		assertThat(LockRules.observationName(null).problem()).isEqualTo("must not be null");
		assertThat(LockRules.observationName(""))
			.isEqualTo(new Violation("must not be blank", "Give the kind of lock, such as \"OrderService.pay\""));
	}

	@Test
	void keyPrefixIsNotBlankAndHasNoBraces() {
		assertThat(LockRules.keyPrefix("billing:lock:")).isNull();
		assertThat(LockRules.keyPrefix(null).problem()).isEqualTo("must not be null");
		assertThat(LockRules.keyPrefix(" ").problem()).isEqualTo("must not be blank");
		assertThat(LockRules.keyPrefix("app:{x}:")).isEqualTo(new Violation(
				"must not contain '{' or '}', which would break the hash tag of each lock's keys, but was 'app:{x}:'",
				"Remove the braces, as in \"billing:lock:\""));
		assertThat(LockRules.keyPrefix("app}")).isNotNull();
	}

	@Test
	void waitTimeIsZeroOrPositive() {
		assertThat(LockRules.waitTime(Duration.ZERO)).isNull();
		assertThat(LockRules.waitTime(Duration.ofNanos(1))).isNull();
		assertThat(LockRules.waitTime(Duration.ofMillis(-1))).isEqualTo(new Violation(
				"must be zero or positive but was PT-0.001S", "Use zero for a single attempt, or how long to wait"));
		assertThat(LockRules.waitTime(null).problem()).isEqualTo("must be zero or positive but was null");
	}

	@Test
	void leaseTimeIsAtLeastOneMillisecond() {
		assertThat(LockRules.leaseTime(Duration.ofMillis(1))).isNull();
		assertThat(LockRules.leaseTime(Duration.ofNanos(999_999)))
			.isEqualTo(new Violation("must be at least 1 ms (Redis counts it in milliseconds) but was PT0.000999999S",
					"Use a lease the work surely fits in, or leave the lease unset for watchdog renewal"));
		assertThat(LockRules.leaseTime(Duration.ZERO)).isNotNull();
		assertThat(LockRules.leaseTime(Duration.ofSeconds(-5))).isNotNull();
		assertThat(LockRules.leaseTime(null)).isNotNull();
	}

	@Test
	void watchdogLeaseIsAtLeastOneMillisecond() {
		assertThat(LockRules.watchdogLease(Duration.ofSeconds(30))).isNull();
		assertThat(LockRules.watchdogLease(Duration.ofNanos(900_000)).problem())
			.isEqualTo("must be at least 1 ms (Redis counts it in milliseconds) but was PT0.0009S");
		assertThat(LockRules.watchdogLease(Duration.ofNanos(900_000)).action())
			.isEqualTo("Use some seconds: the lease is how long a crashed holder blocks others at most");
	}

	@Test
	void renewIntervalIsAtLeastOneMillisecondAndShorterThanTheWatchdogLease() {
		Duration lease = Duration.ofSeconds(30);
		assertThat(LockRules.renewInterval(Duration.ofSeconds(10), lease)).isNull();
		assertThat(LockRules.renewInterval(Duration.ofMillis(29_999), lease)).isNull();
		assertThat(LockRules.renewInterval(lease, lease))
			.isEqualTo(new Violation(
					"must be shorter than the watchdog lease (PT30S) but was PT30S, or a held lock would expire between"
							+ " renewals",
					"Use a third of the watchdog lease, which leaves room for two failed renewals"));
		assertThat(LockRules.renewInterval(Duration.ofMinutes(1), lease).problem())
			.startsWith("must be shorter than the watchdog lease");
		assertThat(LockRules.renewInterval(Duration.ZERO, lease).problem()).startsWith("must be at least 1 ms");
		assertThat(LockRules.renewInterval(null, lease).problem()).endsWith("but was null");
	}

	@Test
	void minReplicasIsZeroOrPositive() {
		assertThat(LockRules.minReplicas(0)).isNull();
		assertThat(LockRules.minReplicas(2)).isNull();
		assertThat(LockRules.minReplicas(-1)).isEqualTo(new Violation("must be zero or positive but was -1",
				"Use 0 to wait for no replica, or how many replicas must acknowledge a grant"));
	}

	@Test
	void replicationTimeoutIsAtLeastOneMillisecond() {
		assertThat(LockRules.replicationTimeout(Duration.ofMillis(1))).isNull();
		assertThat(LockRules.replicationTimeout(Duration.ZERO).problem())
			.isEqualTo("must be at least 1 ms (Redis counts it in milliseconds) but was PT0S");
		assertThat(LockRules.replicationTimeout(Duration.ZERO).action()).startsWith("Use a short wait");
	}

	@Test
	void replicationTimeoutIsShorterThanTheCommandTimeoutWhenGrantsWaitForReplicas() {
		Duration commandTimeout = Duration.ofSeconds(2);
		assertThat(LockRules.replicationTimeout(Duration.ofMillis(1999), 1, commandTimeout)).isNull();
		assertThat(LockRules.replicationTimeout(Duration.ofSeconds(5), 0, commandTimeout)).isNull();
		assertThat(LockRules.replicationTimeout(Duration.ofSeconds(2), 1, commandTimeout)).isEqualTo(new Violation(
				"must be shorter than the Redis command timeout (PT2S) but was PT2S, or the command timeout would end"
						+ " the wait for replicas as a failure",
				"Shorten redis-lock.replication-timeout or lengthen spring.data.redis.timeout"));
	}

	@Test
	void modeIsNotNull() {
		assertThat(LockRules.mode(LockMode.READ)).isNull();
		assertThat(LockRules.mode(null)).isEqualTo(
				new Violation("must not be null", "Give LockMode.EXCLUSIVE, the default, READ, WRITE or PERMIT"));
	}

	@Test
	void onlyExclusiveLocksAreFair() {
		assertThat(LockRules.fairMode(true, LockMode.EXCLUSIVE)).isNull();
		assertThat(LockRules.fairMode(false, LockMode.READ)).isNull();
		assertThat(LockRules.fairMode(true, LockMode.WRITE)).isEqualTo(new Violation(
				"applies to exclusive locks only, but the mode is WRITE; a read/write lock already keeps writers from"
						+ " starving behind readers",
				"Ask for an exclusive lock to be fair, or for a WRITE lock that is not fair"));
	}

	@Test
	void messageNamesTheValueThenSaysWhatIsWrongAndWhatToDo() {
		assertThat(LockRules.minReplicas(-1).message("minReplicas")).isEqualTo(
				"minReplicas must be zero or positive but was -1. Use 0 to wait for no replica, or how many replicas"
						+ " must acknowledge a grant");
	}

	@Test
	void apiLayerThrowsIllegalArgumentExceptionWithTheMessage() {
		LockRules.check("waitTime", null);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> LockRules.check("waitTime", LockRules.waitTime(Duration.ofSeconds(-1))))
			.withMessage("waitTime must be zero or positive but was PT-1S. Use zero for a single attempt, or how long"
					+ " to wait");
	}

}
