package io.github.redislock.autoconfigure.integration;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;

import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.integration.DistributedLockRegistry;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DistributedLockRegistryAutoConfiguration}.
 */
@RedisTest
class DistributedLockRegistryAutoConfigurationTests {

	private final ApplicationContextRunner runner;

	DistributedLockRegistryAutoConfigurationTests(RedisServer redis) {
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisLockAutoConfiguration.class,
					DistributedLockRegistryAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port());
	}

	@Test
	void providesARegistryOfRedisLocksByDefault() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(LockRegistry.class).hasBean("distributedLockRegistry");
			LockRegistry<?> registry = context.getBean(LockRegistry.class);
			assertThat(registry).isInstanceOf(DistributedLockRegistry.class);
			Lock lock = registry.obtain("auto-configured");
			assertThat(lock.tryLock()).isTrue();
			lock.unlock();
		});
	}

	@Test
	void backsOffForTheApplicationsOwnRegistry() {
		this.runner.withUserConfiguration(OwnRegistry.class).run((context) -> {
			assertThat(context).hasSingleBean(LockRegistry.class).doesNotHaveBean(DistributedLockRegistry.class);
			assertThat(context.getBean(LockRegistry.class).obtain("own")).isInstanceOf(ReentrantLock.class);
		});
	}

	@Test
	void isTurnedOffByItsProperty() {
		this.runner.withPropertyValues("redis-lock.integration.lock-registry.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LockRegistry.class));
	}

	@Test
	void isAbsentWithoutSpringIntegration() {
		this.runner.withClassLoader(new FilteredClassLoader(LockRegistry.class))
			.run((context) -> assertThat(context).doesNotHaveBean(DistributedLockRegistry.class));
	}

	@Test
	void isAbsentWhenLockingIsTurnedOff() {
		this.runner.withPropertyValues("redis-lock.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LockRegistry.class));
	}

	@Test
	void isRegisteredAsAutoConfiguration() {
		assertThat(ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader()).getCandidates())
			.contains(DistributedLockRegistryAutoConfiguration.class.getName());
	}

	@Test
	void documentsItsPropertyForIdeCompletion() throws IOException {
		try (InputStream metadata = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
			assertThat(metadata).isNotNull();
			String json = new String(metadata.readAllBytes(), StandardCharsets.UTF_8);
			assertThat(json).contains("\"redis-lock.integration.lock-registry.enabled\"");
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnRegistry {

		@Bean
		LockRegistry<Lock> ownLockRegistry() {
			return new DefaultLockRegistry();
		}

	}

}
