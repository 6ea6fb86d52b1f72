package io.github.redislock.autoconfigure.endpoint;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.context.annotation.Import;
import org.springframework.test.web.servlet.assertj.MockMvcTester;

import io.github.redislock.LockHandle;
import io.github.redislock.LockTemplate;
import io.github.redislock.autoconfigure.RedisServerConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

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
				.hasPathSatisfying("$.held[0].thread",
						(thread) -> assertThat(thread).isEqualTo(Thread.currentThread().getName()))
				.hasPathSatisfying("$.held[0].fencingToken",
						(token) -> assertThat(token).asNumber().isEqualTo(handle.fencingToken()))
				.hasPathSatisfying("$.held[0].renewed", (renewed) -> assertThat(renewed).isEqualTo(true))
				.hasPath("$.held[0].heldSince")
				.hasPath("$.held[0].leaseLeftMillis")
				.hasPathSatisfying("$.awaited", (awaited) -> assertThat(awaited).asArray().isEmpty());
		}
		assertThat(this.mvc.get().uri("/actuator/redislocks")).hasStatusOk()
			.bodyJson()
			.hasPathSatisfying("$.held", (held) -> assertThat(held).asArray().isEmpty());
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
