package io.github.redislock.samples.flashsale.embedded;

import java.time.Duration;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.stereotype.Component;

import io.github.redislock.test.RedisServer;

/**
 * The embedded default: when no Redis answers at {@code spring.data.redis.host} and
 * {@code port}, start a {@code redis-server} (the one on the {@code PATH}, else the
 * binary shipped in {@code com.github.codemonstur:embedded-redis}) and point those
 * properties at it, so that the sample runs on a machine with only a JDK. The server is
 * stopped with the application. {@code flash-sale.embedded-redis} changes the default
 * {@code auto} to {@code always} (start one, even if a Redis answers) or {@code never}.
 *
 * <p>
 * It runs as a bean factory post-processor, after every property source is in place
 * (including a test's {@code @DynamicPropertySource}) and before any bean, the Redis
 * connection factory among them, is created.
 *
 * @author redis-lock
 */
@Component
public class EmbeddedRedis implements BeanFactoryPostProcessor, EnvironmentAware {

	private static final Logger logger = LoggerFactory.getLogger(EmbeddedRedis.class);

	private static final Duration PING_TIMEOUT = Duration.ofMillis(500);

	private static final String PROPERTY = "flash-sale.embedded-redis";

	private static final String REDIS = "spring.data.redis.";

	private ConfigurableEnvironment environment;

	@Override
	public void setEnvironment(Environment environment) {
		this.environment = (ConfigurableEnvironment) environment;
	}

	@Override
	public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
		Mode mode = Binder.get(this.environment).bind(PROPERTY, Mode.class).orElse(Mode.AUTO);
		if (mode == Mode.NEVER) {
			return;
		}
		String host = this.environment.getProperty(REDIS + "host", "localhost");
		int port = this.environment.getProperty(REDIS + "port", Integer.class, 6379);
		if (mode == Mode.AUTO) {
			if (isOtherwiseConfigured()) {
				logger.info("Using the Redis configured by spring.data.redis.url, sentinel or cluster");
				return;
			}
			if (RedisPing.answers(host, port, PING_TIMEOUT)) {
				logger.info("Using the Redis at {}:{}", host, port);
				return;
			}
		}
		RedisServer server = start(host, port);
		this.environment.getPropertySources()
			.addFirst(new MapPropertySource("embeddedRedis",
					Map.of(REDIS + "host", server.host(), REDIS + "port", server.port())));
		// Registered before every other bean, so destroyed after them, connections first
		((DefaultListableBeanFactory) beanFactory).registerDisposableBean("embeddedRedis", server::close);
		// The server lives and dies with this JVM, so there is never anything to
		// reconnect
		// to; and on Ctrl-C test support's shutdown hook kills it while the context
		// closes, when a reconnection would race with Lettuce's own shutdown and log
		// errors
		LettuceClientOptionsBuilderCustomizer noReconnect = (options) -> options.autoReconnect(false);
		beanFactory.registerSingleton("embeddedRedisClientOptions", noReconnect);
		if (mode == Mode.AUTO) {
			logger.info("No Redis answered at {}:{}, so this application started {}; it stops with the application. "
					+ "Set spring.data.redis.host and port to use your own", host, port, server);
		}
		else {
			logger.info("Started {} for this application ({}=always); it stops with the application", server, PROPERTY);
		}
	}

	private boolean isOtherwiseConfigured() {
		return this.environment.containsProperty(REDIS + "url")
				|| this.environment.containsProperty(REDIS + "sentinel.master")
				|| this.environment.containsProperty(REDIS + "cluster.nodes");
	}

	private static RedisServer start(String host, int port) {
		try {
			return RedisServer.start();
		}
		catch (RuntimeException ex) {
			throw new IllegalStateException("No Redis answered at " + host + ":" + port
					+ " and none could be started here: start one, or set spring.data.redis.host and port", ex);
		}
	}

	/**
	 * Values of {@code flash-sale.embedded-redis}.
	 */
	enum Mode {

		/**
		 * Start a Redis when none answers at the configured address.
		 */
		AUTO,

		/**
		 * Always start a Redis, leaving one that answers at the configured address alone.
		 */
		ALWAYS,

		/**
		 * Never start a Redis.
		 */
		NEVER

	}

}
