package io.github.redislock.contract;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The lock's contract, one suite that every topology runs: a subclass supplies the
 * fixture ({@link #createFixture()}) of a standalone server, a Redis Cluster or a
 * Sentinel group, and inherits every test. The tests live in one interface per theme,
 * each a test interface JUnit runs as part of the class that implements it: exclusion and
 * ownership, edge cases, waiting, leases, fencing, fair locks, read/write locks, shared
 * readers, the fuzz test, the {@code java.util.concurrent} {@code Lock}, lease extensions
 * and queries, shutdown, reactive locks, commands Lettuce sends again after a reconnect,
 * the least-privileged Redis user, and leases renewed in batches. A theme per file keeps
 * each small; one class per topology starts its cluster or Sentinel group once for them
 * all, and reports every test under the topology's name.
 * <p>
 * The suite lives in the library's test tree, not in {@code redis-lock-test-support}:
 * test-support cannot depend on the library, because the library's tests depend on
 * test-support, and Maven refuses that cycle even in test scope.
 * <p>
 * Tests observe nodes through their engines' {@link io.github.redislock.LockDiagnostics
 * diagnostics} (a waiter is asleep when {@code sleepingWaiterCount()} says so) and Redis
 * through the server that holds a lock's keys ({@link LockFixture#cli(String)}), never
 * through threads' stack frames. Lock names come from {@link LockFixture#names} where a
 * behaviour must be shown on every primary of a cluster.
 */
abstract class LockContractTests implements ExclusiveLockContract, LockEdgeContract, LockWaitingContract,
		LockLeaseContract, LockFencingContract, FairLockContract, ReadWriteLockContract, SharedReaderContract,
		LockFuzzContract, JucLockContract, LeaseExtensionContract, ShutdownContract, ReactiveLockContract,
		ReplayedCommandContract, LeastPrivilegeContract, BatchedRenewalContract, PermitContract {

	private LockFixture locks;

	private ExecutorService executor;

	/**
	 * A new fixture on the topology under test, for one test.
	 * @return the fixture
	 */
	protected abstract LockFixture createFixture();

	@BeforeEach
	void createFixtureAndExecutor() {
		this.locks = createFixture();
		this.locks.flush();
		this.executor = LockFixture.executor(getClass().getSimpleName());
	}

	@AfterEach
	void closeFixtureAndExecutor() throws Exception {
		Thread.interrupted();
		this.executor.shutdownNow();
		this.executor.awaitTermination(10, TimeUnit.SECONDS);
		this.locks.close();
	}

	@Override
	public LockFixture locks() {
		return this.locks;
	}

	@Override
	public ExecutorService executor() {
		return this.executor;
	}

}
