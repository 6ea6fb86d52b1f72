package io.github.redislock;

import java.time.Duration;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * What to lock and how long to wait and hold it, built fluently:
 *
 * <pre class="code">
 * LockRequest.of("invoice:" + id).waitTime(Duration.ofSeconds(2)).leaseTime(Duration.ofMinutes(1))
 * </pre>
 *
 * Instances are immutable; each method returns a new request. Options left unset take the
 * {@link LockOptions} of the {@link LockTemplate} that runs the request.
 *
 * @author redis-lock
 */
public final class LockRequest {

	private final String key;

	private final @Nullable Duration waitTime;

	private final @Nullable Duration leaseTime;

	private final boolean reentrant;

	private LockRequest(String key, @Nullable Duration waitTime, @Nullable Duration leaseTime, boolean reentrant) {
		this.key = key;
		this.waitTime = waitTime;
		this.leaseTime = leaseTime;
		this.reentrant = reentrant;
	}

	/**
	 * Start a request for the given lock name.
	 * @param key the lock name, neither null nor blank; the configured prefix is added to
	 * it
	 * @return a request with the template's default wait and lease
	 * @throws IllegalArgumentException if the key is null or blank
	 */
	public static LockRequest of(String key) {
		return new LockRequest(LockArguments.requireKey(key), null, null, true);
	}

	/**
	 * Return a request that waits at most the given time for the lock.
	 * {@link Duration#ZERO} makes a single attempt. The default is the template's
	 * {@linkplain LockOptions#waitTime() wait time}.
	 * @param waitTime how long to wait, not negative
	 * @return a new request
	 * @throws IllegalArgumentException if the wait time is null or negative
	 */
	public LockRequest waitTime(Duration waitTime) {
		return new LockRequest(this.key, LockArguments.requireNotNegative(waitTime, "waitTime"), this.leaseTime,
				this.reentrant);
	}

	/**
	 * Return a request whose grant expires after the given lease and is not renewed: the
	 * holder must finish within it. The default is the template's
	 * {@linkplain LockOptions#leaseTime() lease time}, which when unset means the
	 * watchdog renews the lock for as long as it is held.
	 * @param leaseTime the lease, positive
	 * @return a new request
	 * @throws IllegalArgumentException if the lease is null, zero or negative
	 */
	public LockRequest leaseTime(Duration leaseTime) {
		return new LockRequest(this.key, this.waitTime, LockArguments.requirePositive(leaseTime, "leaseTime"),
				this.reentrant);
	}

	/**
	 * Return a request whose lock belongs to the acquisition rather than to the calling
	 * thread: no thread re-enters it, and the calling thread, asking again, waits like
	 * any other. Use it for a lock released when asynchronous work completes, so that the
	 * thread that started the work cannot run a second piece under the same lock
	 * meanwhile. The default is reentrant.
	 * @param reentrant whether the calling thread may re-enter the lock
	 * @return a new request
	 */
	public LockRequest reentrant(boolean reentrant) {
		return new LockRequest(this.key, this.waitTime, this.leaseTime, reentrant);
	}

	/**
	 * Return the lock name.
	 * @return the lock name
	 */
	public String key() {
		return this.key;
	}

	/**
	 * Return the wait time, or {@code null} for the template's default.
	 * @return the wait time or {@code null}
	 */
	public @Nullable Duration waitTime() {
		return this.waitTime;
	}

	/**
	 * Return the explicit lease, or {@code null} for the template's default.
	 * @return the lease or {@code null}
	 */
	public @Nullable Duration leaseTime() {
		return this.leaseTime;
	}

	/**
	 * Return whether the calling thread may re-enter the lock.
	 * @return whether the lock is reentrant
	 */
	public boolean isReentrant() {
		return this.reentrant;
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return (this == other) || (other instanceof LockRequest that && this.key.equals(that.key)
				&& Objects.equals(this.waitTime, that.waitTime) && Objects.equals(this.leaseTime, that.leaseTime)
				&& this.reentrant == that.reentrant);
	}

	@Override
	public int hashCode() {
		return Objects.hash(this.key, this.waitTime, this.leaseTime, this.reentrant);
	}

	@Override
	public String toString() {
		return "LockRequest[key=" + this.key + ", waitTime=" + this.waitTime + ", leaseTime=" + this.leaseTime
				+ ", reentrant=" + this.reentrant + "]";
	}

}
