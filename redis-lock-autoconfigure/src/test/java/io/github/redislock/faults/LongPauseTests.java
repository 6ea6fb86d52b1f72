package io.github.redislock.faults;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.LockHandle;
import io.github.redislock.LockOptions;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.contract.CountingObserver;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.contract.Topology;
import io.github.redislock.test.JavaProcess;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A holder whose whole JVM is paused (SIGSTOP) past its lease: another JVM gets the lock
 * with a greater fencing token meanwhile, and the first, once resumed, learns that its
 * lock was lost and that its token is older than the latest grant.
 */
class LongPauseTests {

	@RegisterExtension
	static final Topology<RedisServer, StandaloneLocks> topology = Topology.standalone();

	private static final Duration LEASE = Duration.ofSeconds(2);

	private static final Duration RENEW_INTERVAL = Duration.ofMillis(500);

	/** Time allowed on top of a computed bound, for scheduling on a busy machine. */
	private static final Duration MARGIN = Duration.ofSeconds(1);

	/**
	 * The paused holder's lease runs out in Redis while it cannot renew it; this JVM
	 * acquires with a greater token, and the holder, resumed, reports the loss, an older
	 * token, and a release that says the lock was lost.
	 */
	@Test
	void holderPausedPastItsLeaseLearnsOnResumeThatItLostTheLockToAGreaterToken() throws Exception {
		RedisServer server = topology.servers();
		String key = "redis-lock:{nightly}";
		try (JavaProcess holder = JavaProcess.start(PausedHolderNode.class, server.host(),
				Integer.toString(server.port()), "nightly", Long.toString(LEASE.toMillis()),
				Long.toString(RENEW_INTERVAL.toMillis()));
				StandaloneLocks locks = topology.fixture();
				RedisCli cli = server.cli()) {
			holder.awaitOutput("HELD", Duration.ofSeconds(30));
			long holderToken = number(holder.output(), "TOKEN");
			// Renewed while the holder runs: held for longer than one lease.
			long held = System.nanoTime();
			await().atMost(LEASE.plus(MARGIN.multipliedBy(2)))
				.failFast("the running holder's lock expired", () -> cli.get(key) == null)
				.until(() -> System.nanoTime() - held > LEASE.plusMillis(500).toNanos());
			LockTemplate successorNode = locks.template(server.host(), server.port(), LockOptions.defaults(),
					new CountingObserver());
			assertThat(successorNode.tryLock("nightly", Duration.ZERO)).isEmpty();
			holder.pause();
			long paused = System.nanoTime();
			try (LockHandle successor = successorNode
				.lock(LockRequest.of("nightly").waitTime(LEASE.plus(MARGIN.multipliedBy(3))))) {
				assertThat(Duration.ofNanos(System.nanoTime() - paused)).isLessThan(LEASE.plus(MARGIN));
				assertThat(successor.fencingToken()).isGreaterThan(holderToken);
				String successorOwner = cli.get(key);
				holder.resume();
				holder.awaitOutput("CLOSE", Duration.ofSeconds(5));
				String output = holder.output();
				assertThat(output).contains("LOST").contains("OLDER true");
				assertThat(number(output, "LATEST")).isEqualTo(successor.fencingToken());
				assertThat(number(output, "CLOSE LockLostException")).isEqualTo(holderToken);
				assertThat(holder.waitFor(Duration.ofSeconds(10))).isZero();
				// The resumed holder's renewal and release changed nothing.
				assertThat(successor.isHeld()).isTrue();
				assertThat(cli.get(key)).isEqualTo(successorOwner);
			}
		}
	}

	private static long number(String output, String label) {
		Matcher matcher = Pattern.compile(Pattern.quote(label) + " (\\d+)").matcher(output);
		assertThat(matcher.find()).as("line '%s <number>' in %s", label, output).isTrue();
		return Long.parseLong(matcher.group(1));
	}

}
