package io.github.redislock.integration;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ConcurrentModificationException;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import java.util.function.Function;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.integration.support.locks.LockRegistry;
import org.springframework.core.log.LogMessage;
import org.springframework.integration.support.locks.RenewableLockRegistry;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.util.Assert;

import io.github.redislock.FencedLock;
import io.github.redislock.LockHandle;
import io.github.redislock.LockInterruptedException;
import io.github.redislock.LockLostException;
import io.github.redislock.LockOperations;
import io.github.redislock.LockRequest;

/**
 * A Spring Integration {@link LockRegistry} of redis-lock's locks:
 * {@link #obtain(Object)} returns the {@link RegistryLock} of the key's
 * {@link String#valueOf(Object) string form}, held across every JVM that uses the same
 * Redis, renewed by the watchdog while held, and reentrant per thread. Anything that
 * takes a {@code LockRegistry} runs on it: {@code LockRegistryLeaderInitiator}, the
 * aggregator's and the idempotent receiver's locks, and the registry's own
 * {@code executeLocked} methods. As Spring Integration's own registries, its locks are
 * {@code DistributedLock}s (a ttl is a fixed lease for that hold), and their
 * {@code unlock()} of a lock lost while held throws
 * {@link ConcurrentModificationException}.
 *
 * <p>
 * As a {@link RenewableLockRegistry}, {@link #renewLock(Object, Duration)} sets the
 * calling thread's lease to the given time from now ({@link FencedLock#extend}), and
 * {@link #renewLock(Object)} to the hold's own fixed lease. Locks without a fixed lease
 * need no renewal, since the watchdog renews them: for those, {@code renewLock(key)} only
 * checks that the lock is still held. Ask for a fixed lease per hold
 * ({@link RegistryLock#lock(Duration)}) or for every lock through the request factory;
 * with a {@link #setRenewalTaskScheduler(TaskScheduler) renewal scheduler}, the registry
 * renews fixed leases while held.
 *
 * <p>
 * It keeps one {@code Lock} per key, so that {@code obtain(key)} returns the same object
 * for the same key, up to a capacity beyond which the least recently obtained ones that
 * no thread holds are forgotten: a held lock is never forgotten (the registry then keeps
 * more locks than its capacity, as many as are held). The holds belong to the key, so a
 * caller that keeps a forgotten {@code Lock} is not affected.
 *
 * @author redis-lock
 */
public class DistributedLockRegistry implements RenewableLockRegistry<RegistryLock> {

	private static final Log logger = LogFactory.getLog(DistributedLockRegistry.class);

	/** How many locks are kept by default. */
	public static final int DEFAULT_CAPACITY = 100_000;

	/**
	 * The wait of {@code lock()}: finite for any engine, for ever for any process.
	 * {@code lock()} asks again in the unlikely case that it ends.
	 */
	private static final Duration UNBOUNDED = Duration.ofDays(36_500);

	private final LockOperations operations;

	private final Function<String, LockRequest> requests;

	private final int capacity;

	/** The locks kept, least recently obtained first; the monitor of the holds too. */
	private final LinkedHashMap<String, KeyLock> locks = new LinkedHashMap<>(16, 0.75f, true);

	/** How many holds of each key there are, across threads; guarded by the locks. */
	private final Map<String, Integer> holdCounts = new HashMap<>();

	/** The calling thread's holds of each key, the latest first; removed when empty. */
	private final ThreadLocal<Map<String, Deque<Hold>>> threadHolds = new ThreadLocal<>();

	private volatile @Nullable TaskScheduler renewalScheduler;

	/**
	 * Create a registry of exclusive locks renewed by the watchdog, keeping up to
	 * {@value #DEFAULT_CAPACITY} of them.
	 * @param operations the locks, such as the auto-configured {@code LockTemplate}
	 */
	public DistributedLockRegistry(LockOperations operations) {
		this(operations, LockRequest::of, DEFAULT_CAPACITY);
	}

	/**
	 * Create a registry whose locks are made as the request factory says, such as with a
	 * fixed lease or fair ({@code key -> LockRequest.of(key).fair(true)}).
	 * @param operations the locks, such as the auto-configured {@code LockTemplate}
	 * @param requests the request of each lock name; its wait time is not read, since
	 * each {@code Lock} method says how long it waits, and it must be reentrant
	 * @param capacity how many locks no thread holds to keep, at least 1; the default is
	 * {@value #DEFAULT_CAPACITY}
	 */
	public DistributedLockRegistry(LockOperations operations, Function<String, LockRequest> requests, int capacity) {
		Assert.notNull(operations, "LockOperations must not be null");
		Assert.notNull(requests, "The request factory must not be null");
		Assert.isTrue(capacity > 0, () -> "The capacity must be at least 1, not " + capacity);
		this.operations = operations;
		this.requests = requests;
		this.capacity = capacity;
	}

	/**
	 * Renew, on the given scheduler, the fixed leases of the holds taken from now on, for
	 * as long as they are held, as Spring Integration's registries do: every third of the
	 * lease, the lease is set again to its whole length from now (owner-checked in Redis,
	 * same fencing token), so that a held lock does not expire while its JVM runs, and
	 * expires within its lease once the JVM dies. A fixed lease is a ttl given to
	 * {@link RegistryLock#lock(Duration)} or
	 * {@link RegistryLock#tryLock(Duration, Duration)}, or the lease of the request
	 * factory's requests; the holds the watchdog renews are left to it. A renewal stops
	 * when its hold is released or found lost; one that fails on Redis is logged and
	 * tried again at the next. Without a scheduler, the default, fixed leases are not
	 * renewed: they run out while held unless extended with {@link #renewLock(Object)}.
	 * @param renewalTaskScheduler the scheduler of the renewals, such as Spring Boot's
	 * {@code taskScheduler} bean
	 */
	@Override
	public void setRenewalTaskScheduler(TaskScheduler renewalTaskScheduler) {
		Assert.notNull(renewalTaskScheduler, "The renewal TaskScheduler must not be null");
		this.renewalScheduler = renewalTaskScheduler;
	}

	/**
	 * Return the lock of the key's string form: the same object for the same key while it
	 * is kept, which it is at least while held.
	 * @param lockKey the lock name, or an object whose {@code toString()} is
	 * @return a {@code Lock} with the JDK's contract and Spring Integration's
	 * {@code DistributedLock} methods, whose {@code fencingToken()} reads the calling
	 * thread's token
	 * @throws IllegalArgumentException when the key breaks redis-lock's rules for lock
	 * names (such as being blank), or the request factory made a request that is not
	 * reentrant
	 */
	@Override
	public RegistryLock obtain(Object lockKey) {
		String key = String.valueOf(lockKey);
		synchronized (this.locks) {
			KeyLock lock = this.locks.get(key);
			if (lock == null) {
				lock = new KeyLock(key, this.requests.apply(key));
				this.locks.put(key, lock);
				forgetUnheldBeyondCapacity(key);
			}
			return lock;
		}
	}

	/**
	 * Forget the least recently obtained locks beyond the capacity, skipping those held
	 * and the one just obtained: usually the eldest alone.
	 */
	private void forgetUnheldBeyondCapacity(String obtained) {
		Iterator<String> eldestFirst = this.locks.keySet().iterator();
		while (this.locks.size() > this.capacity && eldestFirst.hasNext()) {
			String key = eldestFirst.next();
			if (!key.equals(obtained) && !this.holdCounts.containsKey(key)) {
				eldestFirst.remove();
			}
		}
	}

	/**
	 * Return the fencing token of the calling thread's hold of the key's lock, for the
	 * writes it protects, such as from {@code Candidate.onGranted} of a leader election,
	 * which runs on the thread that holds the lock. A shortcut for
	 * {@code obtain(lockKey).fencingToken()}.
	 * @param lockKey the lock name, or an object whose {@code toString()} is
	 * @return the fencing token
	 * @throws IllegalMonitorStateException when the calling thread does not hold the lock
	 * through this registry
	 */
	public long fencingToken(Object lockKey) {
		return latestHold(String.valueOf(lockKey), "so it has no fencing token; read the token").handle()
			.fencingToken();
	}

	/**
	 * Renew the calling thread's hold of the key's lock: set its lease to the hold's
	 * fixed lease from now (the ttl it was locked with, or else the request factory's
	 * lease), or, for a lock the watchdog renews, check that the watchdog has not found
	 * it lost.
	 * @param lockKey the lock name, or an object whose {@code toString()} is
	 * @throws IllegalStateException when the calling thread does not hold the lock
	 * through this registry, or the lock was lost
	 */
	@Override
	public void renewLock(Object lockKey) {
		String key = String.valueOf(lockKey);
		Hold hold = heldForRenewal(key);
		Duration lease = hold.lease();
		if (lease != null) {
			extend(key, hold, lease);
		}
		else if (!hold.handle().isHeld()) {
			// Without a fixed lease, the watchdog renews it; extending by the engine's
			// own lease would only repeat its work.
			throw lost(key, null);
		}
	}

	/**
	 * Set the calling thread's lease of the key's lock to the given time from now,
	 * owner-checked in Redis; the fencing token stays the same. A lock the watchdog
	 * renews goes back to the watchdog's lease at its next renewal.
	 * @param lockKey the lock name, or an object whose {@code toString()} is
	 * @param ttl how long the lock is to stay held from now; positive
	 * @throws IllegalStateException when the calling thread does not hold the lock
	 * through this registry, or the lock was lost
	 * @throws IllegalArgumentException when the time is not positive
	 */
	@Override
	public void renewLock(Object lockKey, Duration ttl) {
		Assert.notNull(ttl, "The ttl must not be null");
		String key = String.valueOf(lockKey);
		extend(key, heldForRenewal(key), ttl);
	}

	private Hold heldForRenewal(String key) {
		try {
			return latestHold(key, "so it cannot be renewed; renew it");
		}
		catch (IllegalMonitorStateException ex) {
			throw new IllegalStateException("Could not renew lock '" + key + "': " + ex.getMessage(), ex);
		}
	}

	private void extend(String key, Hold hold, Duration lease) {
		try {
			hold.handle().extend(lease);
		}
		catch (LockLostException ex) {
			throw lost(key, ex);
		}
	}

	private static IllegalStateException lost(String key, @Nullable LockLostException cause) {
		return new IllegalStateException("Could not renew lock '" + key + "': it was lost (its lease ran out or "
				+ "Redis lost it), so the work done under it may have overlapped with another owner; "
				+ "unlock it and stop that work", cause);
	}

	private Hold latestHold(String key, String consequence) {
		Map<String, Deque<Hold>> holds = this.threadHolds.get();
		Deque<Hold> stack = (holds != null) ? holds.get(key) : null;
		if (stack == null) {
			throw notHeld(key, consequence);
		}
		return stack.peek();
	}

	private static IllegalMonitorStateException notHeld(String key, String consequence) {
		return new IllegalMonitorStateException("Lock '" + key + "' is not held by thread '"
				+ Thread.currentThread().getName() + "' through this registry, " + consequence
				+ " after lock() or a successful tryLock(), on the thread that locked it");
	}

	/**
	 * Record a hold of the calling thread. A hold while the thread's previous one is
	 * still held re-entered it and shares its lease.
	 */
	private void push(String key, KeyLock lock, LockHandle handle, @Nullable Duration lease) {
		Map<String, Deque<Hold>> holds = this.threadHolds.get();
		if (holds == null) {
			holds = new HashMap<>();
			this.threadHolds.set(holds);
		}
		Deque<Hold> stack = holds.computeIfAbsent(key, (name) -> new ArrayDeque<>());
		Hold outer = stack.peek();
		boolean reentered = outer != null && outer.handle().isHeld();
		Hold hold = new Hold(key, handle, reentered ? outer.lease() : lease);
		stack.push(hold);
		TaskScheduler scheduler = this.renewalScheduler;
		if (!reentered && lease != null && scheduler != null) {
			hold.renewOn(scheduler);
		}
		synchronized (this.locks) {
			this.holdCounts.merge(key, 1, Integer::sum);
			// Kept while held, also when it was forgotten before it was locked.
			this.locks.putIfAbsent(key, lock);
		}
	}

	/** Remove the calling thread's latest hold of the key. */
	private Hold pop(String key) {
		Map<String, Deque<Hold>> holds = this.threadHolds.get();
		Deque<Hold> stack = (holds != null) ? holds.get(key) : null;
		if (stack == null) {
			throw new IllegalMonitorStateException("Lock '" + key + "' is not held by thread '"
					+ Thread.currentThread().getName() + "' through this registry; call unlock() once per "
					+ "successful lock() or tryLock(), from the thread that locked it");
		}
		Hold hold = stack.pop();
		if (stack.isEmpty()) {
			holds.remove(key);
			if (holds.isEmpty()) {
				this.threadHolds.remove();
			}
		}
		synchronized (this.locks) {
			this.holdCounts.computeIfPresent(key, (name, count) -> (count > 1) ? count - 1 : null);
		}
		return hold;
	}

	private boolean isHeldByCurrentThread(String key) {
		Map<String, Deque<Hold>> holds = this.threadHolds.get();
		return holds != null && holds.containsKey(key);
	}

	@Override
	public String toString() {
		return "DistributedLockRegistry[" + this.operations + "]";
	}

	/**
	 * One hold of a thread: the engine's handle, the fixed lease of the hold in Redis (or
	 * {@code null} when the watchdog renews it), and its renewal on the registry's
	 * scheduler, if any.
	 */
	private static final class Hold {

		private final String key;

		private final LockHandle handle;

		private final @Nullable Duration lease;

		private final AtomicBoolean renewalEnded = new AtomicBoolean();

		private volatile @Nullable ScheduledFuture<?> renewal;

		Hold(String key, LockHandle handle, @Nullable Duration lease) {
			this.key = key;
			this.handle = handle;
			this.lease = lease;
		}

		LockHandle handle() {
			return this.handle;
		}

		@Nullable Duration lease() {
			return this.lease;
		}

		/** Renew the fixed lease every third of it until {@link #endRenewal()}. */
		void renewOn(TaskScheduler scheduler) {
			Duration lease = this.lease;
			Assert.state(lease != null, "Only a fixed lease is renewed on the scheduler");
			Duration interval = Duration.ofMillis(Math.max(1, lease.toMillis() / 3));
			// At a fixed rate: a renewal's round trip must not delay the next, which a
			// short lease cannot afford.
			ScheduledFuture<?> renewal = scheduler.scheduleAtFixedRate(() -> renew(lease), Instant.now().plus(interval),
					interval);
			this.renewal = renewal;
			// Ended before the future was known: endRenewal() could not cancel it.
			if (this.renewalEnded.get()) {
				renewal.cancel(false);
			}
		}

		private void renew(Duration lease) {
			if (this.renewalEnded.get()) {
				return;
			}
			try {
				this.handle.extend(lease);
			}
			catch (LockLostException | IllegalStateException ex) {
				// Lost, which unlock() reports, or released meanwhile.
				logger.debug(LogMessage.format("Stopped renewing lock '%s': %s", this.key, ex.getMessage()));
				endRenewal();
			}
			catch (RuntimeException ex) {
				logger.warn(LogMessage.format("Could not renew the lease of lock '%s' (%s); trying again in a "
						+ "third of the lease, before it runs out", this.key, ex.getMessage()), ex);
			}
		}

		/** Stop renewing: when released or found lost. */
		void endRenewal() {
			this.renewalEnded.set(true);
			ScheduledFuture<?> renewal = this.renewal;
			if (renewal != null) {
				renewal.cancel(false);
			}
		}

	}

	/**
	 * The lock of one key: every method acts on the calling thread's holds of the key in
	 * the registry, so that any object of the key does as well as another.
	 */
	private final class KeyLock implements RegistryLock {

		private final String key;

		private final LockRequest once;

		private final LockRequest unbounded;

		KeyLock(String key, LockRequest request) {
			if (!request.isReentrant()) {
				throw new IllegalArgumentException("The lock '" + key + "' of a LockRegistry must be reentrant, but "
						+ "the request factory made it with reentrant(false); leave reentrant as it is by default");
			}
			this.key = key;
			this.once = request.waitTime(Duration.ZERO);
			this.unbounded = request.waitTime(UNBOUNDED);
		}

		@Override
		public void lock() {
			lockUninterruptibly(this.unbounded);
		}

		@Override
		public void lock(Duration ttl) {
			lockUninterruptibly(this.unbounded.leaseTime(ttl));
		}

		private void lockUninterruptibly(LockRequest request) {
			while (!tryLockUninterruptibly(request)) {
				// Only after a century; ask again rather than return unlocked.
			}
		}

		@Override
		public void lockInterruptibly() throws InterruptedException {
			while (!tryLockInterruptibly(this.unbounded)) {
				// Only after a century; ask again rather than return unlocked.
			}
		}

		@Override
		public boolean tryLock() {
			return tryLockUninterruptibly(this.once);
		}

		@Override
		public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
			// toNanos saturates rather than overflows; a negative time is no wait, as in
			// the JDK.
			return tryLockInterruptibly(this.once.waitTime(Duration.ofNanos(Math.max(0, unit.toNanos(time)))));
		}

		@Override
		public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
			Assert.notNull(waitTime, "The wait time must not be null");
			LockRequest request = this.once.leaseTime(ttl);
			return tryLockInterruptibly(waitTime.isNegative() ? request : request.waitTime(waitTime));
		}

		/**
		 * As {@code ReentrantLock.lock()} and {@code tryLock()}: an interrupt, set before
		 * or while trying, is remembered and set again once done, and the attempt goes
		 * on. The flag is cleared meanwhile, or the engine would end every attempt at
		 * once.
		 */
		private boolean tryLockUninterruptibly(LockRequest request) {
			boolean interrupted = Thread.interrupted();
			try {
				while (true) {
					try {
						return acquire(request);
					}
					catch (LockInterruptedException ex) {
						// The engine set the flag again.
						Thread.interrupted();
						interrupted = true;
					}
				}
			}
			finally {
				if (interrupted) {
					Thread.currentThread().interrupt();
				}
			}
		}

		private boolean tryLockInterruptibly(LockRequest request) throws InterruptedException {
			try {
				return acquire(request);
			}
			catch (LockInterruptedException ex) {
				// The JDK clears the interrupt status when it throws
				// InterruptedException.
				Thread.interrupted();
				InterruptedException interrupted = new InterruptedException(ex.getMessage());
				interrupted.initCause(ex);
				throw interrupted;
			}
		}

		private boolean acquire(LockRequest request) {
			Optional<LockHandle> handle = DistributedLockRegistry.this.operations.tryLock(request);
			handle.ifPresent((held) -> push(this.key, this, held, request.leaseTime()));
			return handle.isPresent();
		}

		@Override
		public void unlock() {
			Hold hold = pop(this.key);
			hold.endRenewal();
			try {
				hold.handle().close();
			}
			catch (LockLostException ex) {
				throw new ConcurrentModificationException("Lock '" + this.key + "' (fencing token "
						+ ex.getFencingToken() + ") was lost while held (its lease ran out or Redis lost it), so "
						+ "the work done under it may have overlapped with another owner's; the hold is given up "
						+ "here and the lock's current owner is left as it is", ex);
			}
		}

		@Override
		public long fencingToken() {
			return latestHold(this.key, "so it has no fencing token; read the token").handle().fencingToken();
		}

		@Override
		public void extend(Duration lease) {
			latestHold(this.key, "so its lease cannot be extended; extend it").handle().extend(lease);
		}

		/**
		 * Not supported: a {@link Condition} needs its waiters woken by the thread that
		 * holds the lock, in this JVM, which a lock shared across JVMs cannot promise.
		 * @throws UnsupportedOperationException always
		 */
		@Override
		public Condition newCondition() {
			throw new UnsupportedOperationException("Lock '" + this.key
					+ "' is distributed and cannot offer a Condition, whose waiters would have to be signalled from "
					+ "other JVMs; hold the lock through LockOperations and LockHandle, and signal through Redis "
					+ "(such as a list the waiting side pops with BLPOP)");
		}

		@Override
		public String toString() {
			return "RegistryLock[key=" + this.key + ", heldByCurrentThread=" + isHeldByCurrentThread(this.key) + "]";
		}

	}

}
