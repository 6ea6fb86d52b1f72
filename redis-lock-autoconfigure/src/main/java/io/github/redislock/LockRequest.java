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

	private final @Nullable String name;

	private final LockMode mode;

	private final boolean fair;

	private final int limit;

	private LockRequest(String key, @Nullable Duration waitTime, @Nullable Duration leaseTime, boolean reentrant,
			@Nullable String name, LockMode mode, boolean fair, int limit) {
		LockRules.check("Fair ordering of lock '" + key + "'", LockRules.fairMode(fair, mode));
		this.key = key;
		this.limit = limit;
		this.waitTime = waitTime;
		this.leaseTime = leaseTime;
		this.reentrant = reentrant;
		this.name = name;
		this.mode = mode;
		this.fair = fair;
	}

	/**
	 * Start a request for the given lock name.
	 * @param key the lock name, neither null nor blank; the configured prefix is added to
	 * it
	 * @return a request with the template's default wait and lease
	 * @throws IllegalArgumentException if the key breaks {@link LockRules#key}
	 */
	public static LockRequest of(String key) {
		LockRules.check("Lock key", LockRules.key(key));
		return new LockRequest(key, null, null, true, null, LockMode.EXCLUSIVE, false, 1);
	}

	/**
	 * Start a request for the read lock of the given name.
	 * @param key the lock name, neither null nor blank
	 * @return a request for a {@link LockMode#READ} lock
	 * @throws IllegalArgumentException if the key breaks {@link LockRules#key}
	 */
	public static LockRequest read(String key) {
		return of(key).mode(LockMode.READ);
	}

	/**
	 * Start a request for the write lock of the given name.
	 * @param key the lock name, neither null nor blank
	 * @return a request for a {@link LockMode#WRITE} lock
	 * @throws IllegalArgumentException if the key breaks {@link LockRules#key}
	 */
	public static LockRequest write(String key) {
		return of(key).mode(LockMode.WRITE);
	}

	/**
	 * Start a request for one of the given number of permits of a name: at most
	 * {@code limit} holders at once across every JVM, each with a lease of its own. The
	 * limit travels with the request, and each JVM admits while fewer than its own limit
	 * hold, so that while instances disagree (a limit changed in one first) no more than
	 * the largest of their limits hold. A thread that holds a permit of the name and asks
	 * again re-enters the one it holds, unless the request is not
	 * {@linkplain #reentrant(boolean) reentrant}.
	 * @param key the name the permits share, neither null nor blank
	 * @param limit how many may hold a permit at once, at least 1
	 * @return a request for a {@link LockMode#PERMIT}
	 * @throws IllegalArgumentException if the key breaks {@link LockRules#key} or the
	 * limit {@link LockRules#limit}
	 */
	public static LockRequest permit(String key, int limit) {
		return of(key).mode(LockMode.PERMIT).limit(limit);
	}

	/**
	 * Return a request that waits at most the given time for the lock.
	 * {@link Duration#ZERO} makes a single attempt. The default is the template's
	 * {@linkplain LockOptions#waitTime() wait time}.
	 * @param waitTime how long to wait, not negative
	 * @return a new request
	 * @throws IllegalArgumentException if the wait time is null or negative
	 * ({@link LockRules#waitTime})
	 */
	public LockRequest waitTime(Duration waitTime) {
		LockRules.check("waitTime", LockRules.waitTime(waitTime));
		return new LockRequest(this.key, waitTime, this.leaseTime, this.reentrant, this.name, this.mode, this.fair,
				this.limit);
	}

	/**
	 * Return a request whose grant expires after the given lease and is not renewed: the
	 * holder must finish within it. The default is the template's
	 * {@linkplain LockOptions#leaseTime() lease time}, which when unset means the
	 * watchdog renews the lock for as long as it is held.
	 * @param leaseTime the lease, positive
	 * @return a new request
	 * @throws IllegalArgumentException if the lease is null or shorter than a millisecond
	 * ({@link LockRules#leaseTime})
	 */
	public LockRequest leaseTime(Duration leaseTime) {
		LockRules.check("leaseTime", LockRules.leaseTime(leaseTime));
		return new LockRequest(this.key, this.waitTime, leaseTime, this.reentrant, this.name, this.mode, this.fair,
				this.limit);
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
		return new LockRequest(this.key, this.waitTime, this.leaseTime, reentrant, this.name, this.mode, this.fair,
				this.limit);
	}

	/**
	 * Return a request that metrics and traces report under the given name rather than
	 * under its key. Keys often carry ids (such as {@code "order:42"}), which would make
	 * a metric tag per id; a name groups the locks of one kind (such as
	 * {@code "OrderService.pay"}, the name {@code @DistributedLock} methods get). The
	 * default is a name derived from the key by the observer.
	 * @param name a name of few distinct values, neither null nor blank
	 * @return a new request
	 * @throws IllegalArgumentException if the name is null or blank
	 */
	public LockRequest name(String name) {
		LockRules.check("Lock name for observations", LockRules.observationName(name));
		return new LockRequest(this.key, this.waitTime, this.leaseTime, this.reentrant, name, this.mode, this.fair,
				this.limit);
	}

	/**
	 * Return a request for the given kind of lock: exclusive (the default), the read or
	 * write side of a read/write lock, or a permit ({@link #limit(int)}).
	 * @param mode the kind of lock
	 * @return a new request
	 * @throws IllegalArgumentException if the mode is null, or not exclusive for a fair
	 * request
	 */
	public LockRequest mode(LockMode mode) {
		LockRules.check("Lock mode", LockRules.mode(mode));
		return new LockRequest(this.key, this.waitTime, this.leaseTime, this.reentrant, this.name, mode, this.fair,
				this.limit);
	}

	/**
	 * Return a request whose {@link LockMode#PERMIT} admits at most the given number of
	 * holders at once; ignored by the other modes. The default is 1.
	 * @param limit how many may hold a permit at once, at least 1
	 * @return a new request
	 * @throws IllegalArgumentException if the limit is less than 1
	 * ({@link LockRules#limit})
	 */
	public LockRequest limit(int limit) {
		LockRules.check("Permit limit of '" + this.key + "'", LockRules.limit(limit));
		return new LockRequest(this.key, this.waitTime, this.leaseTime, this.reentrant, this.name, this.mode, this.fair,
				limit);
	}

	/**
	 * Return a request for a fair lock: waiters of every JVM queue in Redis and get the
	 * lock in the order they asked for it, and a release wakes the head of the queue
	 * only. A queued waiter that dies or gives up leaves the queue at the latest when its
	 * wait time ends. Costs a round trip more when a waiter gives up, and no hand-over
	 * between threads of one JVM. Fair and non-fair requests for one name do not order
	 * each other: use one kind per name. The default is not fair.
	 * @param fair whether waiters are served first come, first served
	 * @return a new request
	 * @throws IllegalArgumentException if fair and the mode is not exclusive
	 */
	public LockRequest fair(boolean fair) {
		return new LockRequest(this.key, this.waitTime, this.leaseTime, this.reentrant, this.name, this.mode, fair,
				this.limit);
	}

	/**
	 * Return the kind of lock.
	 * @return the lock mode
	 */
	public LockMode mode() {
		return this.mode;
	}

	/**
	 * Return how many may hold a {@link LockMode#PERMIT} of the key at once.
	 * @return the limit, 1 unless set
	 */
	public int limit() {
		return this.limit;
	}

	/**
	 * Return whether waiters are served in the order they asked.
	 * @return whether the lock is fair
	 */
	public boolean isFair() {
		return this.fair;
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

	/**
	 * Return the name metrics and traces report the lock under, or {@code null} to derive
	 * one from the key.
	 * @return the name or {@code null}
	 */
	public @Nullable String name() {
		return this.name;
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return (this == other) || (other instanceof LockRequest that && this.key.equals(that.key)
				&& Objects.equals(this.waitTime, that.waitTime) && Objects.equals(this.leaseTime, that.leaseTime)
				&& this.reentrant == that.reentrant && Objects.equals(this.name, that.name) && this.mode == that.mode
				&& this.fair == that.fair && this.limit == that.limit);
	}

	@Override
	public int hashCode() {
		return Objects.hash(this.key, this.waitTime, this.leaseTime, this.reentrant, this.name, this.mode, this.fair,
				this.limit);
	}

	@Override
	public String toString() {
		return "LockRequest[key=" + this.key + ", waitTime=" + this.waitTime + ", leaseTime=" + this.leaseTime
				+ ", reentrant=" + this.reentrant + ((this.name != null) ? ", name=" + this.name : "")
				+ ((this.mode != LockMode.EXCLUSIVE) ? ", mode=" + this.mode : "")
				+ ((this.mode == LockMode.PERMIT) ? ", limit=" + this.limit : "") + (this.fair ? ", fair" : "") + "]";
	}

}
