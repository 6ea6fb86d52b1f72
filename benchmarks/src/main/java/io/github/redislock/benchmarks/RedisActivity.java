package io.github.redislock.benchmarks;

import org.jspecify.annotations.Nullable;

import io.github.redislock.test.RedisCli;

/**
 * What the Redis server did within a measured window: the commands it ran and the CPU
 * time it used. Started and stopped from one thread.
 */
final class RedisActivity {

	private final RedisCli cli;

	private long cpuAtStart;

	private long cpuNanos;

	private @Nullable CommandCounts commands;

	RedisActivity(RedisCli cli) {
		this.cli = cli;
	}

	void start() {
		CommandCounts.reset(this.cli);
		this.cpuAtStart = CpuTime.redis(this.cli);
	}

	void stop() {
		this.cpuNanos = CpuTime.redis(this.cli) - this.cpuAtStart;
		this.commands = CommandCounts.read(this.cli);
	}

	CommandCounts commands() {
		if (this.commands == null) {
			throw new IllegalStateException("The window was not stopped");
		}
		return this.commands;
	}

	long cpuNanos() {
		return this.cpuNanos;
	}

}
