package io.github.redislock;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.contract.Topology;
import io.github.redislock.test.JavaProcess;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A read lock's or a permit's holder whose JVM is killed with {@code SIGKILL}: the next
 * holder gets in once the dead holder's lease ran out in Redis, not before and not much
 * after, without any release to wake it. Within one JVM and between engines, read/write
 * locks and permits are part of the lock's contract, which every topology runs: see
 * {@code ReadWriteLockContract} and {@code PermitContract}. A killed exclusive holder is
 * in {@link LockFaultTests}.
 */
class KilledHolderTests {

	@RegisterExtension
	static final Topology<RedisServer, StandaloneLocks> topology = Topology.standalone();

	private static final String KEY = "doc";

	/**
	 * Where the holders of the read/write lock {@value #KEY} live, with the default
	 * prefix.
	 */
	private static final String HOLDERS_KEY = "redis-lock:{doc}:rw";

	/**
	 * Time allowed on top of a computed bound, for scheduling on a busy machine; far
	 * below the waits and leases that the bounds tell apart.
	 */
	private static final Duration MARGIN = Duration.ofSeconds(2);

	private static final String PERMITS_KEY = "partner-api";

	private static final int LIMIT = 2;

	/** Where the holders of the permits of {@value #PERMITS_KEY} live. */
	private static final String PERMIT_HOLDERS_KEY = "redis-lock:{partner-api}:permits";

	private static final Pattern TOKEN = Pattern.compile("TOKEN (\\d+)");

	private RedisServer server;

	private StandaloneLocks locks;

	private LockTemplate node;

	private RedisCli cli;

	private JavaProcess child;

	@BeforeEach
	void setUp() {
		this.server = topology.servers();
		this.locks = topology.fixture();
		this.locks.flush();
		this.node = this.locks.template();
		this.cli = this.locks.cli();
	}

	@AfterEach
	void tearDown() throws Exception {
		if (this.child != null) {
			this.child.close();
		}
		this.locks.close();
	}

	@Test
	void killedReaderJvmIsSucceededByWriterAfterItsLease() {
		// Long enough that the living reader's renewals, a second apart, keep its lock on
		// a
		// busy machine; the writer must wait for what is left of it once the reader dies.
		Duration lease = Duration.ofSeconds(5);
		this.child = JavaProcess.start(HoldingNode.class, this.server.host(), Integer.toString(this.server.port()), KEY,
				Long.toString(lease.toMillis()), "1000", LockMode.READ.name());
		this.child.awaitOutput("HELD", Duration.ofSeconds(30));
		long readerToken = token(this.child.output());
		assertThat(tryAndRelease(this.node, LockRequest.write(KEY))).isFalse();
		long beforeKill = System.nanoTime();
		long leaseLeft = this.cli.pttl(HOLDERS_KEY);
		this.child.kill();
		try (LockHandle handle = this.node.lock(LockRequest.write(KEY).waitTime(Duration.ofSeconds(10)))) {
			Duration killToGrant = Duration.ofNanos(System.nanoTime() - beforeKill);
			assertThat(killToGrant).isLessThanOrEqualTo(lease.plus(MARGIN));
			// Not before the dead reader's lease ran out in Redis.
			assertThat(killToGrant).isGreaterThanOrEqualTo(Duration.ofMillis(leaseLeft - 50));
			assertThat(handle.fencingToken()).isGreaterThan(readerToken);
		}
	}

	@Test
	void aKilledHoldersPermitComesBackWithinItsLease() throws Exception {
		// Renewed every second while the child lives; what is left of it when the child
		// dies is what the waiter waits for.
		Duration lease = Duration.ofSeconds(5);
		this.child = JavaProcess.start(HoldingNode.class, this.server.host(), Integer.toString(this.server.port()),
				PERMITS_KEY, Long.toString(lease.toMillis()), "1000", LockMode.PERMIT.name(), Integer.toString(LIMIT));
		this.child.awaitOutput("HELD", Duration.ofSeconds(30));
		long deadToken = token(this.child.output());
		try (LockHandle living = this.node.lock(LockRequest.permit(PERMITS_KEY, LIMIT))) {
			assertThat(
					this.node.tryLock(LockRequest.permit(PERMITS_KEY, LIMIT).reentrant(false).waitTime(Duration.ZERO)))
				.isEmpty();
			long beforeKill = System.nanoTime();
			long leaseLeft = ownersLeaseLeft();
			this.child.kill();
			try (LockHandle next = this.node.lock(LockRequest.permit(PERMITS_KEY, LIMIT)
				.reentrant(false)
				.waitTime(lease.plus(MARGIN).plus(MARGIN)))) {
				Duration killToGrant = Duration.ofNanos(System.nanoTime() - beforeKill);
				assertThat(killToGrant).isLessThanOrEqualTo(lease.plus(MARGIN));
				// Not before the dead holder's lease ran out in Redis.
				assertThat(killToGrant).isGreaterThanOrEqualTo(Duration.ofMillis(leaseLeft - 50));
				assertThat(next.fencingToken()).isGreaterThan(deadToken).isGreaterThan(living.fencingToken());
				assertThat(living.isHeld()).isTrue();
			}
		}
	}

	/** The shortest lease left among the holders in Redis, by the server's clock. */
	private long ownersLeaseLeft() {
		List<?> time = (List<?>) this.cli.command("TIME");
		long now = Long.parseLong(String.valueOf(time.get(0))) * 1000
				+ Long.parseLong(String.valueOf(time.get(1))) / 1000;
		List<?> entries = (List<?>) this.cli.command("HGETALL", PERMIT_HOLDERS_KEY);
		long soonest = Long.MAX_VALUE;
		for (int i = 0; i < entries.size(); i += 2) {
			if (!String.valueOf(entries.get(i)).startsWith("~")) {
				soonest = Math.min(soonest, Long.parseLong(String.valueOf(entries.get(i + 1))) - now);
			}
		}
		return soonest;
	}

	/** Whether the lock could be taken at once; released again if so. */
	private static boolean tryAndRelease(LockTemplate template, LockRequest request) {
		Optional<LockHandle> handle = template.tryLock(request.waitTime(Duration.ZERO));
		handle.ifPresent(LockHandle::close);
		return handle.isPresent();
	}

	private static long token(String output) {
		Matcher matcher = TOKEN.matcher(output);
		assertThat(matcher.find()).as("token in %s", output).isTrue();
		return Long.parseLong(matcher.group(1));
	}

}
