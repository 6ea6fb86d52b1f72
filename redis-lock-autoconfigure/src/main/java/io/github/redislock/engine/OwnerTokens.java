package io.github.redislock.engine;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Owner tokens that are unique per acquisition: a random instance id, fixed for the life
 * of the engine, and a sequence number. A thread id would not do: two JVMs have threads
 * with the same id, and one thread acquires many times.
 *
 * @author redis-lock
 */
final class OwnerTokens {

	private final String instanceId;

	private final AtomicLong sequence = new AtomicLong();

	OwnerTokens() {
		byte[] random = new byte[8];
		new SecureRandom().nextBytes(random);
		this.instanceId = HexFormat.of().formatHex(random);
	}

	String instanceId() {
		return this.instanceId;
	}

	String next() {
		return this.instanceId + ":" + this.sequence.incrementAndGet();
	}

}
