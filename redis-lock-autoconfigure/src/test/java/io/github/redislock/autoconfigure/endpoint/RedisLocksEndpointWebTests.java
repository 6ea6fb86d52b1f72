package io.github.redislock.autoconfigure.endpoint;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.context.annotation.Import;
import org.springframework.test.web.servlet.assertj.MockMvcTester;

import io.github.redislock.LockHandle;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.autoconfigure.RedisServerConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code redislocks} endpoint, the health contribution and the lock metrics of a
 * running web application with Actuator, through MockMvc.
 */
@SpringBootTest(classes = RedisLocksEndpointWebTests.ActuatorApplication.class,
		properties = { "management.endpoints.web.exposure.include=redislocks,health,metrics",
				"management.endpoint.health.show-components=always", "management.endpoint.health.show-details=always" })
@AutoConfigureMockMvc
class RedisLocksEndpointWebTests {

	@Autowired
	private MockMvcTester mvc;

	@Autowired
	private LockTemplate lockTemplate;

	@Test
	void endpointListsHeldLocks() {
		try (LockHandle handle = this.lockTemplate.lock("order:42")) {
			assertThat(this.mvc.get().uri("/actuator/redislocks")).hasStatusOk()
				.bodyJson()
				.hasPathSatisfying("$.held[0].key", (key) -> assertThat(key).isEqualTo("order:42"))
				.hasPathSatisfying("$.held[0].mode", (mode) -> assertThat(mode).isEqualTo("EXCLUSIVE"))
				.hasPathSatisfying("$.held[0].thread",
						(thread) -> assertThat(thread).isEqualTo(Thread.currentThread().getName()))
				.hasPathSatisfying("$.held[0].fencingToken",
						(token) -> assertThat(token).asNumber().isEqualTo(handle.fencingToken()))
				.hasPathSatisfying("$.held[0].renewed", (renewed) -> assertThat(renewed).isEqualTo(true))
				.hasPath("$.held[0].heldSince")
				.hasPath("$.held[0].leaseLeftMillis")
				.hasPathSatisfying("$.awaited", (awaited) -> assertThat(awaited).asArray().isEmpty())
				.hasPathSatisfying("$.permits", (permits) -> assertThat(permits).asArray().isEmpty());
		}
		assertThat(this.mvc.get().uri("/actuator/redislocks")).hasStatusOk()
			.bodyJson()
			.hasPathSatisfying("$.held", (held) -> assertThat(held).asArray().isEmpty());
	}

	@Test
	void endpointAndMetricsShowPermitsHeldAndAwaited() throws Exception {
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try (LockHandle first = this.lockTemplate.lock(LockRequest.permit("exports", 2).reentrant(false));
				LockHandle second = this.lockTemplate.lock(LockRequest.permit("exports", 2).reentrant(false))) {
			Future<?> waiter = executor.submit(() -> this.lockTemplate
				.run(LockRequest.permit("exports", 2).waitTime(Duration.ofSeconds(20)), () -> {
				}));
			await().atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> assertThat(this.mvc.get().uri("/actuator/redislocks")).hasStatusOk()
					.bodyJson()
					.hasPathSatisfying("$.awaited[0].mode", (mode) -> assertThat(mode).isEqualTo("PERMIT")));
			assertThat(this.mvc.get().uri("/actuator/redislocks")).hasStatusOk()
				.bodyJson()
				.hasPathSatisfying("$.held[*].mode",
						(modes) -> assertThat(modes).asArray().containsExactly("PERMIT", "PERMIT"))
				.hasPathSatisfying("$.held[*].key",
						(keys) -> assertThat(keys).asArray().containsExactly("exports", "exports"))
				.hasPathSatisfying("$.awaited[0].key", (key) -> assertThat(key).isEqualTo("exports"))
				.hasPathSatisfying("$.awaited[0].waiters", (waiters) -> assertThat(waiters).asNumber().isEqualTo(1))
				.hasPathSatisfying("$.permits[0].key", (key) -> assertThat(key).isEqualTo("exports"))
				.hasPathSatisfying("$.permits[0].held", (held) -> assertThat(held).asNumber().isEqualTo(2))
				.hasPathSatisfying("$.permits[0].waiting", (waiting) -> assertThat(waiting).asNumber().isEqualTo(1));
			assertThat(this.mvc.get().uri("/actuator/metrics/redis.lock.holds").param("tag", "mode:permit"))
				.hasStatusOk()
				.bodyJson()
				.hasPathSatisfying("$.measurements[0].value", (value) -> assertThat(value).asNumber().isEqualTo(2.0));
			assertThat(this.mvc.get().uri("/actuator/metrics/redis.lock.waiters").param("tag", "mode:permit"))
				.hasStatusOk()
				.bodyJson()
				.hasPathSatisfying("$.measurements[0].value", (value) -> assertThat(value).asNumber().isEqualTo(1.0));
			assertThat(this.mvc.get().uri("/actuator/metrics/redis.lock.holds").param("tag", "mode:exclusive"))
				.hasStatusOk()
				.bodyJson()
				.hasPathSatisfying("$.measurements[0].value", (value) -> assertThat(value).asNumber().isEqualTo(0.0));
			first.close();
			waiter.get(5, TimeUnit.SECONDS);
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	void healthHasTheLockEngine() {
		assertThat(this.mvc.get().uri("/actuator/health")).hasStatusOk()
			.bodyJson()
			.hasPathSatisfying("$.components.redisLock.status", (status) -> assertThat(status).isEqualTo("UP"))
			.hasPath("$.components.redisLock.details.subscription");
	}

	@Test
	void metricsOfAcquisitionsHoldsAndHeldLocks() {
		this.lockTemplate.run("order:42", () -> {
			assertThat(this.mvc.get().uri("/actuator/metrics/redis.lock.holds")).hasStatusOk()
				.bodyJson()
				.hasPathSatisfying("$.measurements[0].value", (value) -> assertThat(value).asNumber().isEqualTo(1.0));
		});
		assertThat(this.mvc.get().uri("/actuator/metrics/redis.lock.acquire").param("tag", "lock.name:order:*"))
			.hasStatusOk()
			.bodyJson()
			.hasPathSatisfying("$.availableTags[*].tag", (tags) -> assertThat(tags).asArray().contains("outcome"));
		assertThat(this.mvc.get().uri("/actuator/metrics/redis.lock.held")).hasStatusOk();
		assertThat(this.mvc.get().uri("/actuator/metrics/redis.lock.waiters")).hasStatusOk();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(RedisServerConfiguration.class)
	static class ActuatorApplication {

	}

}
