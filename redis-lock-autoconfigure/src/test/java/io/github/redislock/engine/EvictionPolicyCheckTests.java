package io.github.redislock.engine;

import java.time.Duration;
import java.util.concurrent.CompletionStage;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import io.github.redislock.LockHandle;
import io.github.redislock.LockTemplate;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Redis that may evict keys when its memory is full may evict lock keys, which all
 * carry a time to live: the engine reads the policy on its first connection and warns,
 * naming the setting; a server that does not evict, or refuses {@code CONFIG}, is not
 * warned about. Each test starts a server of its own with the settings it names.
 */
@ExtendWith(OutputCaptureExtension.class)
class EvictionPolicyCheckTests {

	private static final String WARNING = "may evict lock keys";

	@Test
	void serverThatMayEvictLockKeysIsWarnedAboutOnTheFirstConnection(CapturedOutput output) throws Exception {
		try (RedisServer server = RedisServer.start("--maxmemory", "100mb", "--maxmemory-policy", "volatile-lru");
				StandaloneLocks locks = new StandaloneLocks(server)) {
			LockTemplate template = locks.template();
			try (LockHandle handle = template.lock("order:1")) {
				assertThat(handle.fencingToken()).isPositive();
			}
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(output).contains("WARN")
					.contains("Redis " + WARNING + ": its maxmemory-policy is volatile-lru with maxmemory 104857600")
					.contains("CONFIG SET maxmemory-policy noeviction"));
			// Once per server: a second check of the same engine asks nothing more.
			template.lock("order:2").close();
			assertThat(output.toString().split(WARNING, -1)).hasSize(2);
		}
	}

	@Test
	void allKeysPolicyIsWarnedAboutToo(CapturedOutput output) throws Exception {
		try (RedisServer server = RedisServer.start("--maxmemory", "1gb", "--maxmemory-policy", "allkeys-lfu")) {
			assertThat(checked(server)).isTrue();
			assertThat(output).contains("Redis " + WARNING + ": its maxmemory-policy is allkeys-lfu");
		}
	}

	@Test
	void noevictionUnderALimitIsNotWarnedAbout(CapturedOutput output) throws Exception {
		try (RedisServer server = RedisServer.start("--maxmemory", "100mb", "--maxmemory-policy", "noeviction")) {
			assertThat(checked(server)).isTrue();
			assertThat(output).doesNotContain(WARNING);
		}
	}

	@Test
	void evictingPolicyWithoutALimitIsNotWarnedAbout(CapturedOutput output) throws Exception {
		try (RedisServer server = RedisServer.start("--maxmemory", "0", "--maxmemory-policy", "allkeys-lru")) {
			assertThat(checked(server)).isTrue();
			assertThat(output).doesNotContain(WARNING);
		}
	}

	@Test
	void serverThatRefusesConfigIsLeftUncheckedAndLocksStillWork(CapturedOutput output) throws Exception {
		try (RedisServer server = RedisServer.start("--maxmemory", "100mb", "--maxmemory-policy", "allkeys-lru",
				"--rename-command", "CONFIG", "hidden-config"); StandaloneLocks locks = new StandaloneLocks(server)) {
			assertThat(checked(server)).isTrue();
			try (LockHandle handle = locks.template().lock("order:1")) {
				assertThat(handle.fencingToken()).isPositive();
			}
			assertThat(output).doesNotContain(WARNING).doesNotContain("ERROR");
		}
	}

	/** Run a check of its own on a connection to the server, and wait for its end. */
	private static boolean checked(RedisServer server) throws Exception {
		try (TestScripts scripts = new TestScripts(server, "test:")) {
			CompletionStage<Void> check = new EvictionPolicyCheck().check(scripts.commands().commands());
			await().atMost(Duration.ofSeconds(10)).until(() -> check.toCompletableFuture().isDone());
			return !check.toCompletableFuture().isCompletedExceptionally();
		}
	}

}
