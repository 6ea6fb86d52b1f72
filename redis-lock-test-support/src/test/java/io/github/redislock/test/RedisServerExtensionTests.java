package io.github.redislock.test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

/**
 * Tests for {@link RedisServerExtension}, running fixture classes with the JUnit Platform
 * test kit so what happens after them can be checked too.
 */
class RedisServerExtensionTests {

	@Test
	void sharedServerIsRunningAndEmptyInEveryTestAndClosedAfterTheClass() {
		Recorder.clear();
		run(SharedServerFixture.class, 4);
		assertThat(Recorder.ports).hasSize(4).containsOnly(Recorder.ports.get(0));
		// Killed in the first test, so restarted; paused in the third, so only resumed
		assertThat(Recorder.pids.get(1)).isNotEqualTo(Recorder.pids.get(0));
		assertThat(Recorder.pids.get(2)).isEqualTo(Recorder.pids.get(1));
		assertThat(Recorder.pids.get(3)).isEqualTo(Recorder.pids.get(2));
		assertThat(isAlive(Recorder.pids.get(3))).isFalse();
	}

	@Test
	void dedicatedParameterGetsItsOwnServerClosedAfterTheTest() {
		Recorder.clear();
		run(DedicatedServerFixture.class, 2);
		// Recorded per test: shared port, dedicated port
		assertThat(Recorder.ports).hasSize(4);
		assertThat(Recorder.ports.get(0)).isEqualTo(Recorder.ports.get(2));
		assertThat(Recorder.ports.get(1)).isNotEqualTo(Recorder.ports.get(0));
		assertThat(Recorder.ports.get(3)).isNotEqualTo(Recorder.ports.get(0));
		assertThat(Recorder.pids).allSatisfy((pid) -> assertThat(isAlive(pid)).isFalse());
	}

	@Test
	void constructorLifecycleMethodsAndNestedClassesShareTheServerOfTheOuterClass() {
		Recorder.clear();
		run(NestedFixture.class, 2);
		// @BeforeAll, constructor, @BeforeEach and test, twice but for @BeforeAll
		assertThat(Recorder.ports).hasSize(7).containsOnly(Recorder.ports.get(0));
		assertThat(Recorder.pids).containsOnly(Recorder.pids.get(0));
		assertThat(isAlive(Recorder.pids.get(0))).isFalse();
	}

	@Test
	void sharedServerClosedByATestIsReplacedByANewOne() {
		Recorder.clear();
		run(ClosingFixture.class, 2);
		assertThat(Recorder.pids).hasSize(2).doesNotHaveDuplicates();
		assertThat(Recorder.pids).allSatisfy((pid) -> assertThat(isAlive(pid)).isFalse());
	}

	@Test
	void extendWithWorksLikeTheAnnotation() {
		Recorder.clear();
		run(ExtendWithFixture.class, 1);
		assertThat(Recorder.ports).hasSize(1);
	}

	private static void run(Class<?> fixture, int tests) {
		EngineExecutionResults results = EngineTestKit.engine("junit-jupiter")
			.selectors(selectClass(fixture))
			.execute();
		List<Throwable> failures = results.allEvents()
			.failed()
			.stream()
			.map((event) -> event.getPayload(TestExecutionResult.class))
			.flatMap(Optional::stream)
			.map(TestExecutionResult::getThrowable)
			.flatMap(Optional::stream)
			.toList();
		assertThat(failures).as("failures of %s", fixture.getSimpleName()).isEmpty();
		results.testEvents().assertStatistics((stats) -> stats.started(tests).succeeded(tests));
	}

	private static boolean isAlive(long pid) {
		return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
	}

	/**
	 * What the fixtures saw, in order.
	 */
	static final class Recorder {

		static final List<Integer> ports = new CopyOnWriteArrayList<>();

		static final List<Long> pids = new CopyOnWriteArrayList<>();

		private Recorder() {
		}

		static void clear() {
			ports.clear();
			pids.clear();
		}

		static void record(RedisServer server) {
			ports.add(server.port());
			pids.add(server.pid());
		}

	}

	@RedisTest
	@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
	static class SharedServerFixture {

		@Test
		@Order(1)
		void writesDataAndKillsTheServer(RedisServer server) {
			Recorder.record(server);
			try (RedisCli cli = server.cli()) {
				cli.set("key", "value");
			}
			server.kill();
		}

		@Test
		@Order(2)
		void findsTheServerRestartedAndEmpty(RedisServer server) {
			Recorder.record(server);
			assertThat(server.isRunning()).isTrue();
			try (RedisCli cli = server.cli()) {
				assertThat(cli.dbSize()).isZero();
				cli.set("key", "value");
			}
		}

		@Test
		@Order(3)
		void findsTheDataOfTheLastTestGoneAndPausesTheServer(RedisServer server) {
			Recorder.record(server);
			try (RedisCli cli = server.cli()) {
				assertThat(cli.get("key")).isNull();
			}
			server.pause();
		}

		@Test
		@Order(4)
		void findsTheServerResumed(RedisServer server) {
			Recorder.record(server);
			try (RedisCli cli = server.cli(Duration.ofSeconds(1))) {
				assertThat(cli.ping()).isEqualTo("PONG");
			}
		}

	}

	@RedisTest
	@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
	static class DedicatedServerFixture {

		@Test
		@Order(1)
		void first(RedisServer shared, @RedisTest.Dedicated RedisServer dedicated) {
			Recorder.record(shared);
			Recorder.record(dedicated);
		}

		@Test
		@Order(2)
		void second(RedisServer shared, @RedisTest.Dedicated RedisServer dedicated) {
			Recorder.record(shared);
			Recorder.record(dedicated);
			// The dedicated server of the first test is closed by now
			assertThat(isAlive(Recorder.pids.get(1))).isFalse();
			assertThat(dedicated.isRunning()).isTrue();
		}

	}

	@RedisTest
	static class NestedFixture {

		NestedFixture(RedisServer server) {
			Recorder.record(server);
		}

		@BeforeAll
		static void recordBeforeAll(RedisServer server) {
			Recorder.record(server);
		}

		@BeforeEach
		void recordBeforeEach(RedisServer server) {
			Recorder.record(server);
		}

		@Test
		void outer(RedisServer server) {
			Recorder.record(server);
		}

		@Nested
		class Inner {

			@Test
			void inner(RedisServer server) {
				Recorder.record(server);
			}

		}

	}

	@RedisTest
	@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
	static class ClosingFixture {

		@Test
		@Order(1)
		void closesTheServer(RedisServer server) {
			Recorder.record(server);
			server.close();
		}

		@Test
		@Order(2)
		void getsANewServer(RedisServer server) {
			Recorder.record(server);
			assertThat(server.isRunning()).isTrue();
		}

	}

	@ExtendWith(RedisServerExtension.class)
	static class ExtendWithFixture {

		@Test
		void test(RedisServer server) {
			Recorder.record(server);
			try (RedisCli cli = server.cli()) {
				assertThat(cli.ping()).isEqualTo("PONG");
			}
		}

	}

}
