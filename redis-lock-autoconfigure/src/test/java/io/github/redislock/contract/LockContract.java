package io.github.redislock.contract;

import java.time.Duration;
import java.util.concurrent.ExecutorService;

/**
 * What every theme of the lock's contract reads from the topology under test: its
 * fixture, new for each test, and an executor for the test's other threads, both closed
 * after it. {@link LockContractTests} implements it, once per topology.
 */
interface LockContract {

	/**
	 * What a busy machine may add to a wait that should have ended: generous, so that a
	 * test does not fail for a slow scheduler, yet bounded, so that a wait that never
	 * ends fails the test.
	 */
	Duration SLACK = Duration.ofSeconds(5);

	/**
	 * The fixture of this test, on the topology under test.
	 * @return the fixture
	 */
	LockFixture locks();

	/**
	 * An executor for the threads of this test, shut down after it.
	 * @return the executor
	 */
	ExecutorService executor();

}
