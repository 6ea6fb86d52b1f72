package io.github.redislock.faults;

import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import io.github.redislock.LockDiagnostics;
import io.github.redislock.LockOptions;
import io.github.redislock.LockTemplate;
import io.github.redislock.contract.CountingObserver;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.test.FaultProxy;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

/**
 * {@link ReplayedCommandContract} on one Redis server.
 */
@RedisTest
class ReplayedCommandTests extends ReplayedCommandContract {

	private FaultProxy proxy;

	private StandaloneLocks locks;

	private RedisCli cli;

	@BeforeEach
	void setUp(RedisServer server) {
		this.proxy = FaultProxy.start(server.host(), server.port());
		this.locks = new StandaloneLocks(server);
		this.cli = server.cli();
	}

	@AfterEach
	void tearDown() throws Exception {
		this.proxy.pass();
		this.locks.close();
		this.proxy.close();
		this.cli.close();
	}

	@Override
	protected LockTemplate template(LockOptions options) {
		return this.locks.template(this.proxy.host(), this.proxy.port(), options, new CountingObserver());
	}

	@Override
	protected LockDiagnostics diagnostics(LockTemplate template) {
		return this.locks.diagnostics(template);
	}

	@Override
	protected List<FaultProxy> proxies() {
		return List.of(this.proxy);
	}

	@Override
	protected long scriptCalls() {
		return scriptCalls(this.cli);
	}

	@Override
	protected long existing(String name, String... keys) {
		return (Long) this.cli.command(concat("EXISTS", keys));
	}

	@Override
	protected Object command(String key, String... command) {
		return this.cli.command(command);
	}

	static String[] concat(String command, String... args) {
		String[] all = new String[args.length + 1];
		all[0] = command;
		System.arraycopy(args, 0, all, 1, args.length);
		return all;
	}

}
