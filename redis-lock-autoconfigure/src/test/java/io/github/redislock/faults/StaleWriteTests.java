package io.github.redislock.faults;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.LockHandle;
import io.github.redislock.LockOptions;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.contract.CountingObserver;
import io.github.redislock.contract.LockFixture;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.contract.Topology;
import io.github.redislock.fencing.FencedRedisTemplate;
import io.github.redislock.test.JavaProcess;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The failure fencing guards against, end to end: a holder JVM takes a lock with a fixed
 * lease and is stopped (SIGSTOP) before it writes; its lease runs out, this JVM takes the
 * lock and writes; the holder, resumed, writes with its old token. Plain writes let the
 * stale one overwrite the successor's; fenced writes refuse it.
 *
 * <p>
 * The order is fixed by the protocol, not by timing: the holder is stopped once it
 * printed {@code HELD}, the successor's lock is granted only after the holder's lease ran
 * out, and the holder writes only once the successor set the go key and resumed it.
 */
class StaleWriteTests {

	@RegisterExtension
	static final Topology<RedisServer, StandaloneLocks> topology = Topology.standalone();

	private static final Duration LEASE = Duration.ofSeconds(1);

	/** Longest the successor waits for the paused holder's lease to run out. */
	private static final Duration SUCCESSOR_WAIT = LEASE.plusSeconds(10);

	private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

	private static final Duration WRITE_TIMEOUT = Duration.ofSeconds(10);

	@Test
	void pausedHolderWithoutFencingOverwritesTheSuccessorsWrite() throws Exception {
		Outcome outcome = run("stale-plain", false);
		assertThat(outcome.holderOutput()).contains("WROTE").doesNotContain("STALE");
		// The damage: the successor's write is gone, and the holder learns of its lost
		// lock only when it releases, after it wrote
		assertThat(outcome.value()).isEqualTo("A");
		assertThat(number(outcome.holderOutput(), "LOST")).isEqualTo(outcome.holderToken());
	}

	@Test
	void pausedHolderWithFencedWritesIsRefusedAndLeavesTheSuccessorsWrite() throws Exception {
		Outcome outcome = run("stale-fenced", true);
		assertThat(outcome.holderOutput()).contains("STALE " + outcome.holderToken() + " " + outcome.successorToken())
			.doesNotContain("WROTE");
		assertThat(outcome.value()).isEqualTo("B");
		assertThat(number(outcome.holderOutput(), "LOST")).isEqualTo(outcome.holderToken());
	}

	private Outcome run(String name, boolean fenced) throws Exception {
		RedisServer server = topology.servers();
		String resource = name + ":resource";
		String go = name + ":go";
		LettuceConnectionFactory factory = StandaloneLocks.connectionFactory(server, LockFixture.COMMAND_TIMEOUT);
		try (JavaProcess holder = JavaProcess.start(StaleWriterNode.class, server.host(),
				Integer.toString(server.port()), name, resource, go, Long.toString(LEASE.toMillis()),
				fenced ? "fenced" : "plain"); StandaloneLocks locks = topology.fixture(); RedisCli cli = server.cli()) {
			FencedRedisTemplate fencedRedis = new FencedRedisTemplate(factory);
			LockTemplate successorNode = locks.template(server.host(), server.port(), LockOptions.defaults(),
					new CountingObserver());
			holder.awaitOutput("HELD", START_TIMEOUT);
			long holderToken = number(holder.output(), "TOKEN");
			holder.pause();
			long successorToken;
			// Granted once the stopped holder's lease ran out: it can neither renew nor
			// release
			try (LockHandle successor = successorNode.lock(LockRequest.of(name).waitTime(SUCCESSOR_WAIT))) {
				successorToken = successor.fencingToken();
				assertThat(successorToken).isGreaterThan(holderToken);
				if (fenced) {
					fencedRedis.set(resource, "B", successorToken);
				}
				else {
					cli.set(resource, "B");
				}
			}
			cli.set(go, "go");
			holder.resume();
			holder.awaitOutput("DONE", WRITE_TIMEOUT);
			assertThat(holder.waitFor(WRITE_TIMEOUT)).isZero();
			return new Outcome(holder.output(), holderToken, successorToken, cli.get(resource));
		}
		finally {
			factory.destroy();
		}
	}

	private static long number(String output, String label) {
		Matcher matcher = Pattern.compile(Pattern.quote(label) + " (\\d+)").matcher(output);
		assertThat(matcher.find()).as("line '%s <number>' in %s", label, output).isTrue();
		return Long.parseLong(matcher.group(1));
	}

	/**
	 * What came of a run.
	 *
	 * @param holderOutput what the paused holder printed
	 * @param holderToken its lock's fencing token
	 * @param successorToken the fencing token of this JVM's lock
	 * @param value the resource's value at the end
	 */
	private record Outcome(String holderOutput, long holderToken, long successorToken, String value) {

	}

}
