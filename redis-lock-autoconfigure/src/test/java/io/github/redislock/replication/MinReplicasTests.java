package io.github.redislock.replication;

import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.LockDiagnostics;
import io.github.redislock.LockHandle;
import io.github.redislock.LockNotReplicatedException;
import io.github.redislock.LockOptions;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.contract.LockKeyValues;
import io.github.redislock.engine.RedisLockEngine;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisSentinels;
import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@code redis-lock.min-replicas} on a Sentinel group (a primary, a replica, three
 * sentinels): a grant the replica did not acknowledge is released and reported, and
 * across a failover it is exactly the unacknowledged grants that the promoted replica
 * grants a second time.
 */
class MinReplicasTests {

	/**
	 * Generous, as a busy machine may take a while to acknowledge (a stalled replica
	 * never does), and shorter than the command timeout, as the engine requires.
	 */
	private static final Duration REPLICATION_TIMEOUT = Duration.ofMillis(1500);

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(3);

	private static final Duration LEASE = Duration.ofMinutes(1);

	private final List<AutoCloseable> resources = new ArrayList<>();

	private final Map<LockTemplate, LockDiagnostics> diagnostics = new IdentityHashMap<>();

	private RedisSentinels group;

	@BeforeEach
	void startGroup() {
		this.group = RedisSentinels.start();
	}

	@AfterEach
	void closeAll() throws Exception {
		for (int i = this.resources.size() - 1; i >= 0; i--) {
			this.resources.get(i).close();
		}
		this.group.replica().resume();
		this.group.close();
	}

	/**
	 * With the replica stalled, a grant cannot be acknowledged: released and reported.
	 */
	@Test
	void grantNotAcknowledgedInTimeIsReleasedAndReported() {
		LockTemplate safe = template(1);
		try (LockHandle handle = safe.lock("invoice:1")) {
			assertThat(handle.isHeld()).isTrue();
		}
		this.group.replica().pause();
		assertThatExceptionOfType(LockNotReplicatedException.class).isThrownBy(() -> safe.lock("invoice:2"))
			.withMessageContaining("'invoice:2'")
			.withMessageContaining("redis-lock.min-replicas")
			.satisfies((ex) -> assertThat(ex.getAcknowledged()).isZero());
		try (RedisCli primary = this.group.primary().cli()) {
			assertThat(LockKeyValues.holder(primary, "redis-lock:{invoice:2}")).isNull();
		}
		assertThat(this.diagnostics.get(safe).heldCount()).isZero();
		this.group.replica().resume();
		try (LockHandle handle = safe.lock("invoice:2")) {
			assertThat(handle.isHeld()).isTrue();
		}
	}

	/**
	 * The primary dies while its replica has not copied the latest grants; Sentinel
	 * promotes the replica. Grants made with {@code min-replicas=0} after the replica
	 * stalled are granted again by the new primary while their holders still hold them;
	 * with {@code min-replicas=1} every grant that was made survives, and none is made
	 * twice.
	 */
	@Test
	void failoverGrantsTwiceOnlyWhatWasNotAcknowledged() {
		LockTemplate unsafe = template(0);
		LockTemplate safe = template(1);
		List<LockHandle> safeHandles = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			safeHandles.add(safe.lock(LockRequest.of("safe:" + i).leaseTime(LEASE)));
		}
		RedisServer replica = this.group.replica();
		replica.pause();
		fillReplicationBuffers();
		List<LockHandle> unsafeHandles = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			unsafeHandles.add(unsafe.lock(LockRequest.of("unsafe:" + i).leaseTime(LEASE)));
		}
		int refused = 0;
		for (int i = 5; i < 8; i++) {
			try {
				safeHandles.add(safe.lock(LockRequest.of("safe:" + i).leaseTime(LEASE)));
			}
			catch (LockNotReplicatedException ex) {
				refused++;
			}
		}
		assertThat(refused).as("grants refused while the replica stalled").isEqualTo(3);
		this.group.primary().kill();
		replica.resume();
		this.group.awaitFailover(Duration.ofSeconds(30));

		LockTemplate other = template(0);
		int unsafeTwice = grantedAgain(other, "unsafe:", unsafeHandles);
		int safeTwice = grantedAgain(other, "safe:", safeHandles);
		assertThat(unsafeTwice).as("unacknowledged grants made again by the promoted replica").isEqualTo(5);
		assertThat(safeTwice).as("acknowledged grants made again").isZero();
		assertThat(safeHandles).allMatch(LockHandle::isHeld);
	}

	/**
	 * Write enough to the stalled replica's link that the socket buffers between primary
	 * and replica are full: what the primary writes next stays in its own memory and dies
	 * with it, as over a broken network, instead of waiting in the replica's receive
	 * buffer until it resumes.
	 */
	private void fillReplicationBuffers() {
		String megabyte = "x".repeat(1 << 20);
		try (RedisCli primary = this.group.primary().cli()) {
			for (int i = 0; i < 48; i++) {
				primary.set("filler:" + i, megabyte);
			}
		}
	}

	/** A replication timeout the command timeout would cut short is refused up front. */
	@Test
	void replicationTimeoutMustBeShorterThanTheCommandTimeout() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new LockTemplate(new RedisLockEngine(factory(),
					LockOptions.defaults().withMinReplicas(1, COMMAND_TIMEOUT.plusMillis(1)))))
			.withMessageContaining("redis-lock.replication-timeout")
			.withMessageContaining("spring.data.redis.timeout");
	}

	/** Try each key the handles hold from another client; count the grants it gets. */
	private static int grantedAgain(LockTemplate other, String prefix, List<LockHandle> handles) {
		int twice = 0;
		for (LockHandle handle : handles) {
			assertThat(handle.key()).startsWith(prefix);
			Optional<LockHandle> second = other.tryLock(handle.key(), Duration.ZERO);
			if (second.isPresent()) {
				assertThat(handle.isHeld()).as("its first holder still believes it holds it").isTrue();
				twice++;
			}
		}
		return twice;
	}

	private LockTemplate template(int minReplicas) {
		RedisLockEngine engine = new RedisLockEngine(factory(),
				LockOptions.defaults().withMinReplicas(minReplicas, REPLICATION_TIMEOUT));
		LockTemplate template = new LockTemplate(engine);
		this.resources.add(template);
		this.diagnostics.put(template, engine.diagnostics());
		return template;
	}

	private LettuceConnectionFactory factory() {
		RedisSentinelConfiguration configuration = new RedisSentinelConfiguration();
		configuration.master(this.group.masterName());
		for (String address : this.group.sentinelAddresses()) {
			int colon = address.lastIndexOf(':');
			configuration.sentinel(address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)));
		}
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration,
				LettuceClientConfiguration.builder().commandTimeout(COMMAND_TIMEOUT).build());
		factory.afterPropertiesSet();
		factory.start();
		this.resources.add(factory::destroy);
		return factory;
	}

}
