package io.github.redislock.autoconfigure.fencing;

import java.io.IOException;

import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.github.redislock.StaleFencingTokenException;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.fencing.FencedRedisOperations;
import io.github.redislock.fencing.FencedRedisTemplate;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link FencedRedisAutoConfiguration}.
 */
@RedisTest
class FencedRedisAutoConfigurationTests {

	private final ApplicationContextRunner runner;

	FencedRedisAutoConfigurationTests(RedisServer redis) {
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisLockAutoConfiguration.class,
					FencedRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port());
	}

	@Test
	void providesAFencedRedisTemplateOnTheApplicationsConnectionFactory() {
		this.runner.run((context) -> {
			FencedRedisOperations fenced = context.getBean(FencedRedisOperations.class);
			assertThat(fenced).isInstanceOf(FencedRedisTemplate.class);
			fenced.set("stock:1", "10", 7);
			assertThatExceptionOfType(StaleFencingTokenException.class).isThrownBy(() -> fenced.set("stock:1", "9", 6));
		});
	}

	@Test
	void backsOffForTheApplicationsOwnOperations() {
		this.runner.withUserConfiguration(OwnFencedOperations.class).run((context) -> {
			assertThat(context).hasSingleBean(FencedRedisOperations.class);
			assertThat(context.getBean(FencedRedisOperations.class))
				.isSameAs(context.getBean(OwnFencedOperations.class).fencedRedisOperations);
		});
	}

	@Test
	void staysWhenLockingIsTurnedOff() {
		this.runner.withPropertyValues("redis-lock.enabled=false")
			.run((context) -> assertThat(context).hasSingleBean(FencedRedisOperations.class));
	}

	@Test
	void needsAConnectionFactory() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(FencedRedisAutoConfiguration.class))
			.run((context) -> assertThat(context).doesNotHaveBean(FencedRedisOperations.class));
	}

	@Test
	void registersTheScriptsAsRuntimeHints() throws IOException {
		RuntimeHints hints = new RuntimeHints();
		new FencedRedisAutoConfiguration.FencedScriptsRuntimeHints().registerHints(hints, getClass().getClassLoader());
		Resource[] scripts = new PathMatchingResourcePatternResolver()
			.getResources("classpath*:io/github/redislock/fencing/*.lua");
		assertThat(scripts).hasSize(5);
		for (Resource script : scripts) {
			assertThat(RuntimeHintsPredicates.resource()
				.forResource("io/github/redislock/fencing/" + script.getFilename())).accepts(hints);
		}
	}

	@Test
	void isRegisteredAsAutoConfiguration() {
		assertThat(ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader()).getCandidates())
			.contains(FencedRedisAutoConfiguration.class.getName());
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnFencedOperations {

		final FencedRedisOperations fencedRedisOperations;

		OwnFencedOperations(RedisConnectionFactory connectionFactory) {
			this.fencedRedisOperations = new FencedRedisTemplate(connectionFactory);
		}

		@Bean
		FencedRedisOperations fencedRedisOperations() {
			return this.fencedRedisOperations;
		}

	}

}
