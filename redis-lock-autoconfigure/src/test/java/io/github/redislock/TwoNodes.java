package io.github.redislock;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

import io.github.redislock.contract.LockFixture;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.test.RedisCli;

/**
 * The set-up of tests that pass a lock between threads of one JVM while another JVM
 * competes for it: two nodes on one Redis server, a connection to that server, and an
 * executor for the threads that wait; closed together, the threads first.
 */
final class TwoNodes implements AutoCloseable {

	private final StandaloneLocks locks;

	private final LockTemplate node;

	private final LockTemplate otherNode;

	private final RedisCli cli;

	private final ExecutorService executor;

	/**
	 * Nodes made by the fixture, which they close.
	 * @param locks a fixture on one server
	 * @param threadName the start of the executor's thread names, so that a test can tell
	 * its waiters from threads that other tests left behind
	 */
	TwoNodes(StandaloneLocks locks, String threadName) {
		this.executor = LockFixture.executor(threadName);
		this.locks = locks;
		this.node = this.locks.template();
		this.otherNode = this.locks.template();
		this.cli = this.locks.cli();
	}

	/** The node whose threads pass the lock among themselves. */
	LockTemplate node() {
		return this.node;
	}

	/** Another JVM, as far as Redis can tell: an engine and connections of its own. */
	LockTemplate otherNode() {
		return this.otherNode;
	}

	/** A connection to the server, to read the lock's key. */
	RedisCli cli() {
		return this.cli;
	}

	/** The executor for the threads that wait. */
	ExecutorService executor() {
		return this.executor;
	}

	/** The fixture the nodes were made by, for further nodes. */
	StandaloneLocks locks() {
		return this.locks;
	}

	/**
	 * The diagnostics of a node's engine.
	 * @param node a node of this fixture
	 * @return its diagnostics
	 */
	LockDiagnostics diagnostics(LockTemplate node) {
		return this.locks.diagnostics(node);
	}

	@Override
	public void close() throws Exception {
		this.executor.shutdownNow();
		this.executor.awaitTermination(10, TimeUnit.SECONDS);
		this.locks.close();
	}

}
