package io.github.redislock.autoconfigure.fencing;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.github.redislock.fencing.FencedRedisOperations;
import io.github.redislock.fencing.FencedRedisTemplate;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of a {@link FencedRedisTemplate} on
 * the application's {@link RedisConnectionFactory}; your own
 * {@link FencedRedisOperations} bean replaces it.
 * <p>
 * It does not depend on {@code redis-lock.enabled}: code that writes through it must
 * still start when locking is turned off, and a fenced write needs a token, not a lock.
 *
 * @author redis-lock
 */
@AutoConfiguration(after = DataRedisAutoConfiguration.class)
@ImportRuntimeHints(FencedRedisAutoConfiguration.FencedScriptsRuntimeHints.class)
public final class FencedRedisAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(FencedRedisOperations.class)
	@ConditionalOnSingleCandidate(RedisConnectionFactory.class)
	FencedRedisTemplate fencedRedisTemplate(RedisConnectionFactory redisConnectionFactory) {
		return new FencedRedisTemplate(redisConnectionFactory);
	}

	/**
	 * Keeps the fenced write scripts in native images, where they are loaded from the
	 * classpath.
	 */
	static class FencedScriptsRuntimeHints implements RuntimeHintsRegistrar {

		@Override
		public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
			hints.resources().registerPattern("io/github/redislock/fencing/*.lua");
		}

	}

}
