package io.github.redislock.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.github.redislock.LockHandle;
import io.github.redislock.LockOptions;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.engine.RedisLockEngine;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The lock run by the least-privileged Redis user that {@code docs/operations.md}
 * recommends, limited to the lock's keys and channels with
 * {@code +@all -@dangerous +info}: every lock kind is granted and excludes, a waiter is
 * woken by another node's release message, leases are renewed and extended, and fencing
 * tokens increase, on every primary. Subclasses supply the topology: a standalone server,
 * a Redis Cluster and a Sentinel group.
 */
abstract class LeastPrivilegeContract {

	static final String USER = "redis-lock";

	static final String PASSWORD = "change-me";

	/** The rule of {@code docs/operations.md}, word for word. */
	static final List<String> RULE = List.of("on", ">" + PASSWORD, "resetchannels", "~redis-lock:*", "&redis-lock:*",
			"+@all", "-@dangerous", "+info");

	/** A wait far longer than any test should take, and shorter than a 30 s lease. */
	private static final Duration LONG_WAIT = Duration.ofSeconds(20);

	private LockFixture locks;

	private ExecutorService executor;

	/**
	 * A new fixture on the topology under test, for one test.
	 * @return the fixture
	 */
	protected abstract LockFixture createFixture();

	/**
	 * Every Redis server of the topology, replicas included, as each keeps its own users.
	 * @return the servers
	 */
	protected abstract List<RedisServer> servers();

	@BeforeEach
	void createTheUserOnEveryServer() {
		for (RedisServer server : servers()) {
			try (RedisCli cli = server.cli()) {
				cli.command("ACL", "DELUSER", USER);
				List<String> setUser = new ArrayList<>(List.of("ACL", "SETUSER", USER));
				setUser.addAll(RULE);
				cli.command(setUser.toArray(String[]::new));
				cli.command("ACL", "LOG", "RESET");
			}
		}
		this.locks = createFixture();
		this.locks.flush();
		this.executor = LockFixture.executor(getClass().getSimpleName());
	}

	@AfterEach
	void closeFixtureAndExecutor() throws Exception {
		this.executor.shutdownNow();
		this.executor.awaitTermination(10, TimeUnit.SECONDS);
		this.locks.close();
	}

	/**
	 * The one command the user may not run is the engine's eviction-policy check,
	 * {@code CONFIG GET}, which it does without.
	 */
	@AfterEach
	void nothingButConfigWasRefused() {
		for (RedisServer server : servers()) {
			try (RedisCli cli = server.cli()) {
				assertThat(refusedCommands(cli)).as("commands refused by %s", server).isSubsetOf("config|get");
			}
		}
	}

	@Test
	void everyKindIsGrantedExcludesAndCarriesAGreaterToken() {
		LockTemplate node = template(LockOptions.defaults());
		LockTemplate otherNode = template(LockOptions.defaults());
		for (String name : this.locks.names("least-privilege", 1)) {
			for (LockRequest request : everyKind(name)) {
				long first;
				try (LockHandle held = node.lock(request)) {
					first = held.fencingToken();
					assertThat(otherNode.tryLock(conflicting(request).waitTime(Duration.ZERO))).as(request.toString())
						.isEmpty();
				}
				try (LockHandle next = otherNode.lock(request)) {
					assertThat(next.fencingToken()).as(request.toString()).isGreaterThan(first);
				}
			}
			try (LockHandle read = node.readLock(name + ":read");
					LockHandle shared = otherNode.lock(LockRequest.read(name + ":read").waitTime(Duration.ZERO))) {
				assertThat(shared.isHeld()).isTrue();
			}
		}
	}

	/**
	 * A waiter of every kind sleeps on its lock's release channel and is woken by the
	 * other node's release: it gets the lock long before the holder's 30 s lease would
	 * have ended, within its 20 s wait.
	 */
	@Test
	void waiterIsWokenByAnotherNodesRelease() throws Exception {
		LockTemplate holder = template(LockOptions.defaults());
		LockTemplate waiter = template(LockOptions.defaults());
		for (String name : this.locks.names("least-privilege", 1)) {
			for (LockRequest request : everyKind(name)) {
				LockHandle held = holder.lock(conflicting(request));
				CompletableFuture<Long> waiting = CompletableFuture.supplyAsync(() -> {
					try (LockHandle granted = waiter.lock(request.waitTime(LONG_WAIT))) {
						return granted.fencingToken();
					}
				}, this.executor);
				await().atMost(LONG_WAIT)
					.until(() -> this.locks.diagnostics(waiter).sleepingWaiterCount() == 1 || waiting.isDone());
				assertThat(waiting).as(request.toString()).isNotDone();
				held.close();
				assertThat(waiting.get(LONG_WAIT.toSeconds(), TimeUnit.SECONDS)).as(request.toString())
					.isGreaterThan(held.fencingToken());
			}
		}
	}

	/**
	 * The watchdog renews a lease of every kind past its first end, and an extension sets
	 * a fixed lease from now.
	 */
	@Test
	void leasesOfEveryKindAreRenewedAndExtended() {
		Duration lease = Duration.ofSeconds(2);
		CountingObserver observer = new CountingObserver();
		LockTemplate renewed = this.locks.template(new RedisLockEngine(this.locks.connectionFactory(USER, PASSWORD),
				LockOptions.defaults().withWatchdog(lease, Duration.ofMillis(500)), observer));
		LockTemplate fixed = template(LockOptions.defaults());
		for (String name : this.locks.names("least-privilege", 1)) {
			List<LockRequest> requests = everyKind(name);
			List<LockHandle> handles = requests.stream().map(renewed::lock).toList();
			await().atMost(lease.plus(LockContract.SLACK))
				.until(() -> requests.stream().allMatch((request) -> observer.renewals(request.key()) >= 2));
			handles.forEach(LockHandle::close);
			for (LockRequest request : requests) {
				assertThat(observer.losses(request.key())).as(request.key()).isZero();
				try (LockHandle handle = fixed.lock(request.leaseTime(lease))) {
					handle.extend(Duration.ofMinutes(1));
					assertThat(renewed.remainingLease(request.key())).as(request.key())
						.hasValueSatisfying((left) -> assertThat(left).isGreaterThan(Duration.ofSeconds(30)));
				}
			}
		}
	}

	/** A template on a node of its own, signed in as the least-privileged user. */
	private LockTemplate template(LockOptions options) {
		return this.locks.template(new RedisLockEngine(this.locks.connectionFactory(USER, PASSWORD), options));
	}

	/** The commands in the server's ACL log: each entry is a flat list of fields. */
	private static List<Object> refusedCommands(RedisCli cli) {
		List<Object> refused = new ArrayList<>();
		for (Object entry : (List<?>) cli.command("ACL", "LOG")) {
			List<?> fields = (List<?>) entry;
			refused.add(fields.get(fields.indexOf("object") + 1));
		}
		return refused;
	}

	/** One request of each kind, each on a lock of its own. */
	private static List<LockRequest> everyKind(String name) {
		return List.of(LockRequest.of(name + ":exclusive"), LockRequest.of(name + ":fair").fair(true),
				LockRequest.read(name + ":read"), LockRequest.write(name + ":write"));
	}

	/** A request that the given one's lock excludes, or that excludes it. */
	private static LockRequest conflicting(LockRequest request) {
		return switch (request.mode()) {
			case EXCLUSIVE -> LockRequest.of(request.key()).fair(request.isFair());
			case READ -> LockRequest.write(request.key());
			case WRITE -> LockRequest.read(request.key());
		};
	}

}
