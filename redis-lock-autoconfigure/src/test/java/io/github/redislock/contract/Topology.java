package io.github.redislock.contract;

import java.util.function.Function;
import java.util.function.Supplier;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import io.github.redislock.test.RedisCluster;
import io.github.redislock.test.RedisSentinels;
import io.github.redislock.test.RedisServer;

/**
 * The servers of one Redis topology, started before the first test of a class and closed
 * after its last, and the lock fixtures on them: the one way a test class whose tests
 * share a topology of its own sets it up (a test that breaks its servers starts its own).
 * Registered as a static extension:
 * {@code @RegisterExtension static final Topology<RedisCluster, ClusterLocks> topology = Topology.cluster();}
 *
 * @param <S> the servers: one server, a cluster, or a group under sentinels
 * @param <F> the lock fixtures on them
 */
public final class Topology<S extends AutoCloseable, F extends LockFixture>
		implements BeforeAllCallback, AfterAllCallback {

	private final Supplier<S> start;

	private final Function<S, F> fixture;

	private S servers;

	private Topology(Supplier<S> start, Function<S, F> fixture) {
		this.start = start;
		this.fixture = fixture;
	}

	/**
	 * One Redis server of the class's own.
	 * @return the topology
	 */
	public static Topology<RedisServer, StandaloneLocks> standalone() {
		return new Topology<>(RedisServer::start, StandaloneLocks::new);
	}

	/**
	 * A Redis Cluster of the class's own.
	 * @return the topology
	 */
	public static Topology<RedisCluster, ClusterLocks> cluster() {
		return new Topology<>(RedisCluster::start, ClusterLocks::new);
	}

	/**
	 * A primary, its replicas and their sentinels, of the class's own.
	 * @return the topology
	 */
	public static Topology<RedisSentinels, SentinelLocks> sentinels() {
		return new Topology<>(RedisSentinels::start, SentinelLocks::new);
	}

	/**
	 * The servers, while the class's tests run.
	 * @return the servers
	 */
	public S servers() {
		if (this.servers == null) {
			throw new IllegalStateException("The topology is started before a class's tests and closed after them");
		}
		return this.servers;
	}

	/**
	 * A new lock fixture on the servers; the caller closes it.
	 * @return the fixture
	 */
	public F fixture() {
		return this.fixture.apply(servers());
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		this.servers = this.start.get();
	}

	@Override
	public void afterAll(ExtensionContext context) throws Exception {
		S started = this.servers;
		this.servers = null;
		if (started != null) {
			started.close();
		}
	}

}
