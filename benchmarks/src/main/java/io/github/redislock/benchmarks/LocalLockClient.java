package io.github.redislock.benchmarks;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

/**
 * A limit for the hot key within one JVM: a JVM-local {@link ReentrantLock} per key, fair
 * or not, around the same critical section as the distributed locks. It needs no Redis to
 * lock, so what it reaches is what the critical section and handing a lock from thread to
 * thread allow; a distributed lock does well to come near. Whatever kind of lock the
 * scenario asks for, the client takes its one lock: a fair scenario's table shows the
 * unfair one to tell what giving up the order would buy.
 */
final class LocalLockClient implements LockClient {

	private final boolean fair;

	private final Map<String, ReentrantLock> locks = new ConcurrentHashMap<>();

	LocalLockClient(boolean fair) {
		this.fair = fair;
	}

	@Override
	public Release acquire(String key, @Nullable Duration lease) {
		ReentrantLock lock = this.locks.computeIfAbsent(key, (name) -> new ReentrantLock(this.fair));
		lock.lock();
		return lock::unlock;
	}

	@Override
	public Release acquireFair(String key) {
		return acquire(key, null);
	}

	@Override
	public void close() {
	}

}
