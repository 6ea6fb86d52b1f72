package io.github.redislock.test;

import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Namespace;
import org.junit.jupiter.api.extension.ExtensionContext.Store;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit Jupiter extension: one {@link RedisServer} per test class, shared by its tests
 * and its nested classes.
 * <p>
 * Parameters of type {@link RedisServer} of test methods, lifecycle methods and
 * constructors get the shared server, started on first use and closed after the top-level
 * class. Before each test the shared server is restarted if it was stopped or killed,
 * resumed if it was paused, and flushed, so every test starts with an empty, running
 * server; one that a test closed is replaced by a new one when next asked for. A
 * parameter annotated {@link RedisTest.Dedicated @RedisTest.Dedicated} gets a new server
 * of its own, closed after the test method. Use
 * {@code @ExtendWith(RedisServerExtension.class)} or {@link RedisTest @RedisTest}.
 */
public final class RedisServerExtension implements ParameterResolver, BeforeEachCallback {

	private static final Namespace NAMESPACE = Namespace.create(RedisServerExtension.class);

	private static final String SHARED = "shared";

	/**
	 * Resolves constructor parameters in the test method's context, so a dedicated server
	 * of a constructor lives no longer than the test.
	 * @param context the context
	 * @return {@code TEST_METHOD}
	 */
	@Override
	public ExtensionContextScope getTestInstantiationExtensionContextScope(ExtensionContext context) {
		return ExtensionContextScope.TEST_METHOD;
	}

	/**
	 * Supports parameters of type {@link RedisServer}.
	 * @param parameterContext the parameter
	 * @param extensionContext the context
	 * @return whether the parameter is a {@link RedisServer}
	 */
	@Override
	public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		return parameterContext.getParameter().getType() == RedisServer.class;
	}

	/**
	 * Returns the shared server, or a new one for a
	 * {@link RedisTest.Dedicated @RedisTest.Dedicated} parameter.
	 * @param parameterContext the parameter
	 * @param extensionContext the context
	 * @return the server
	 */
	@Override
	public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		if (parameterContext.isAnnotated(RedisTest.Dedicated.class)) {
			RedisServer server = RedisServer.start();
			// The store closes AutoCloseable values when its context ends
			extensionContext.getStore(NAMESPACE).put(server, server);
			return server;
		}
		return sharedStore(extensionContext).computeIfAbsent(SHARED, (key) -> RedisServer.start(), RedisServer.class);
	}

	/**
	 * Brings the shared server, if one was started, back to running and empty.
	 * @param context the context
	 */
	@Override
	public void beforeEach(ExtensionContext context) {
		RedisServer server = sharedStore(context).get(SHARED, RedisServer.class);
		if (server == null) {
			return;
		}
		if (server.isClosed()) {
			// A test closed it: the next parameter gets a new one
			sharedStore(context).remove(SHARED);
			return;
		}
		if (server.isPaused()) {
			server.resume();
		}
		if (!server.isRunning()) {
			server.restart();
		}
		try (RedisCli cli = server.cli()) {
			cli.flushAll();
		}
	}

	/**
	 * Returns the store of the top-level test class, so nested classes share its server.
	 */
	private static Store sharedStore(ExtensionContext context) {
		ExtensionContext current = context;
		while (current.getParent().flatMap(ExtensionContext::getTestClass).isPresent()) {
			current = current.getParent().get();
		}
		return current.getStore(NAMESPACE);
	}

}
