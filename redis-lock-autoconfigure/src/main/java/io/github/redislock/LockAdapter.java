package io.github.redislock;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.core.log.LogMessage;

/**
 * A {@link Lock} over {@link LockOperations}, as
 * {@link LockOperations#asLock(LockRequest)} documents it. Every {@code lock()} takes a
 * {@link LockHandle} of its own (the engine is reentrant per thread, so a nested one
 * costs no round trip) and pushes it on the calling thread's stack; {@code unlock()}
 * closes the most recent one. The stacks live in a {@link ThreadLocal} removed when it
 * empties, so that pooled threads keep nothing.
 *
 * @author redis-lock
 */
final class LockAdapter implements FencedLock {

	private static final Log logger = LogFactory.getLog(LockAdapter.class);

	/**
	 * The wait of {@code lock()}: finite for any engine, for ever for any process.
	 * {@code lock()} asks again in the unlikely case that it ends.
	 */
	private static final Duration UNBOUNDED = Duration.ofDays(36_500);

	private final LockOperations operations;

	private final LockRequest once;

	private final LockRequest unbounded;

	private final ThreadLocal<Deque<LockHandle>> handles = new ThreadLocal<>();

	LockAdapter(LockOperations operations, LockRequest request) {
		if (!request.isReentrant()) {
			throw new IllegalArgumentException("A java.util.concurrent.locks.Lock of lock '" + request.key()
					+ "' must be reentrant, but the request was made with reentrant(false); "
					+ "use LockOperations.lock(LockRequest) for a lock that belongs to the acquisition");
		}
		this.operations = operations;
		this.once = request.waitTime(Duration.ZERO);
		this.unbounded = request.waitTime(UNBOUNDED);
	}

	@Override
	public void lock() {
		while (!tryLockUninterruptibly(this.unbounded)) {
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

	/**
	 * As {@code ReentrantLock.lock()} and {@code tryLock()}: an interrupt, set before or
	 * while trying, is remembered and set again once done, and the attempt goes on. The
	 * flag is cleared meanwhile, or the engine would end every attempt at once.
	 */
	private boolean tryLockUninterruptibly(LockRequest request) {
		boolean interrupted = Thread.interrupted();
		try {
			while (true) {
				try {
					Optional<LockHandle> handle = this.operations.tryLock(request);
					handle.ifPresent(this::push);
					return handle.isPresent();
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

	@Override
	public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
		// toNanos saturates rather than overflows; a negative time is no wait, as in the
		// JDK.
		long nanos = Math.max(0, unit.toNanos(time));
		return tryLockInterruptibly(this.once.waitTime(Duration.ofNanos(nanos)));
	}

	private boolean tryLockInterruptibly(LockRequest request) throws InterruptedException {
		Optional<LockHandle> handle;
		try {
			handle = this.operations.tryLock(request);
		}
		catch (LockInterruptedException ex) {
			// The JDK clears the interrupt status when it throws InterruptedException.
			Thread.interrupted();
			InterruptedException interrupted = new InterruptedException(ex.getMessage());
			interrupted.initCause(ex);
			throw interrupted;
		}
		handle.ifPresent(this::push);
		return handle.isPresent();
	}

	@Override
	public void unlock() {
		Deque<LockHandle> stack = this.handles.get();
		if (stack == null) {
			throw new IllegalMonitorStateException("Lock '" + this.once.key() + "' is not held by thread '"
					+ Thread.currentThread().getName() + "' through this Lock; call unlock() once per successful "
					+ "lock() or tryLock(), from the thread that locked it");
		}
		LockHandle handle = stack.pop();
		if (stack.isEmpty()) {
			this.handles.remove();
		}
		try {
			handle.close();
		}
		catch (LockLostException ex) {
			// Lock.unlock() has no way to say it; the engine's observer was told. A loss
			// the watchdog found was warned about then; one found only now has logged
			// nothing yet.
			if (ex.isAlreadyReported()) {
				logger.debug(LogMessage.format("Lock '%s' was lost while held, as reported before", ex.getKey()));
				return;
			}
			logger.warn(LogMessage
				.format("Lock '%s' (fencing token %s) was lost while held, so the work done under it may have "
						+ "overlapped with another owner; Lock.unlock() cannot report it: use LockOperations.lock() "
						+ "and LockHandle to be told", ex.getKey(), ex.getFencingToken()));
		}
	}

	@Override
	public long fencingToken() {
		return latestHold("so it has no fencing token; read the token").fencingToken();
	}

	@Override
	public void extend(Duration lease) {
		latestHold("so its lease cannot be extended; extend it").extend(lease);
	}

	private LockHandle latestHold(String consequence) {
		Deque<LockHandle> stack = this.handles.get();
		if (stack == null) {
			throw new IllegalMonitorStateException("Lock '" + this.once.key() + "' is not held by thread '"
					+ Thread.currentThread().getName() + "' through this Lock, " + consequence
					+ " after lock() or a successful tryLock(), on the thread that locked it");
		}
		return stack.peek();
	}

	/**
	 * Not supported: a {@link Condition} needs its waiters woken by the thread that holds
	 * the lock, in this JVM, which a lock shared across JVMs cannot promise.
	 * @throws UnsupportedOperationException always
	 */
	@Override
	public Condition newCondition() {
		throw new UnsupportedOperationException("Lock '" + this.once.key()
				+ "' is distributed and cannot offer a Condition, whose waiters would have to be signalled from "
				+ "other JVMs; hold the lock through LockOperations and LockHandle, and signal through Redis "
				+ "(such as a list the waiting side pops with BLPOP)");
	}

	boolean isHeldByCurrentThread() {
		return this.handles.get() != null;
	}

	private void push(LockHandle handle) {
		Deque<LockHandle> stack = this.handles.get();
		if (stack == null) {
			stack = new ArrayDeque<>();
			this.handles.set(stack);
		}
		stack.push(handle);
	}

	@Override
	public String toString() {
		return "Lock[key=" + this.once.key() + ", heldByCurrentThread=" + isHeldByCurrentThread() + "]";
	}

}
