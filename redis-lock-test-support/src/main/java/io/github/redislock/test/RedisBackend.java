package io.github.redislock.test;

/**
 * One way of running a Redis server: a local process or a container. See
 * {@link RedisServer} for what each operation means.
 */
interface RedisBackend {

	String host();

	int port();

	String version();

	long pid();

	boolean isRunning();

	boolean isPaused();

	boolean isClosed();

	void stop();

	void kill();

	void pause();

	void resume();

	void restart();

	void close();

}
