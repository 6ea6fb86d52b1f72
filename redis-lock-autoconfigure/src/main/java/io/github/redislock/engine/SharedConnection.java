package io.github.redislock.engine;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;

import io.lettuce.core.RedisCommandInterruptedException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * A connection that many threads share, opened once and replaced on failure: the engine's
 * script connection ({@link ScriptCommands}) and its subscription connection
 * ({@link PlainReleaseSubscriber}, {@link ShardedReleaseSubscriber}) are each one.
 *
 * <p>
 * The first thread that needs it opens it, and the others wait for that opening, not for
 * a monitor, so that nothing else (a status check, a close, a command on the connection
 * once open) ever queues behind a connection attempt that waits for Redis. A connection
 * found failed or no longer usable is closed and replaced by the next thread that needs
 * one: the factory may have replaced it.
 *
 * @param <C> the connection type
 * @author redis-lock
 */
final class SharedConnection<C> {

	private static final Log logger = LogFactory.getLog(SharedConnection.class);

	private final Supplier<C> opener;

	private final Predicate<C> usable;

	private final Consumer<C> closer;

	/** The connection, open or being opened; {@code null} before the first. */
	private final AtomicReference<@Nullable CompletableFuture<C>> current = new AtomicReference<>();

	private volatile boolean opened;

	private volatile boolean closed;

	SharedConnection(Supplier<C> opener, Predicate<C> usable, Consumer<C> closer) {
		this.opener = opener;
		this.usable = usable;
		this.closer = closer;
	}

	/**
	 * The usable connection, opened first when there is none; an interrupt ends the wait
	 * for another thread's opening.
	 * @throws RuntimeException when opening failed, here or in the thread waited for
	 */
	C get() {
		return get(true);
	}

	/** As {@link #get()}, but an interrupt does not end the wait: for a release. */
	C getUninterruptibly() {
		return get(false);
	}

	private C get(boolean interruptible) {
		while (true) {
			CompletableFuture<C> seen = this.current.get();
			if (seen != null && !seen.isDone()) {
				try {
					return await(seen, Long.MAX_VALUE, interruptible);
				}
				catch (ExecutionException | TimeoutException ex) {
					// The opener's own exception, thrown in its thread.
					throw (ex.getCause() instanceof RuntimeException runtime) ? runtime : new IllegalStateException(ex);
				}
			}
			C connection = opened(seen);
			if (connection != null && this.usable.test(connection)) {
				return connection;
			}
			CompletableFuture<C> opening = new CompletableFuture<>();
			if (this.current.compareAndSet(seen, opening)) {
				if (connection != null) {
					closeQuietly(connection);
				}
				return open(opening);
			}
		}
	}

	/**
	 * The usable connection without ever blocking the calling thread: at once when open,
	 * when another thread's opening completes, or else once opened on the executor.
	 * @throws RejectedExecutionException when the executor refused the opening
	 */
	CompletionStage<C> getWithoutBlocking(Executor executor) {
		CompletableFuture<C> seen = this.current.get();
		if (seen != null && !seen.isDone()) {
			return seen.minimalCompletionStage();
		}
		C connection = opened(seen);
		if (connection != null && this.usable.test(connection)) {
			return CompletableFuture.completedFuture(connection);
		}
		return CompletableFuture.supplyAsync(this::get, executor);
	}

	/** The connection if one is open now, usable or not; never waits. */
	@Nullable C now() {
		return opened(this.current.get());
	}

	boolean wasOpened() {
		return this.opened;
	}

	/** Open a usable connection on the executor unless there is one, logging failures. */
	void openInBackground(Executor executor) {
		if (this.closed) {
			return;
		}
		try {
			getWithoutBlocking(executor).whenComplete((connection, ex) -> {
				if (ex != null) {
					logger.debug("Could not open the connection; trying again later", ex);
				}
			});
		}
		catch (RejectedExecutionException ex) {
			logger.debug("Could not open the connection in the background: the engine is closing", ex);
		}
	}

	/** Close a connection that failed, unless it was replaced already. */
	void replace(C failed) {
		CompletableFuture<C> seen = this.current.get();
		if (opened(seen) == failed && this.current.compareAndSet(seen, null)) {
			closeQuietly(failed);
		}
	}

	private C open(CompletableFuture<C> opening) {
		C connection;
		try {
			if (this.closed) {
				throw new IllegalStateException("The lock engine was closed");
			}
			connection = this.opener.get();
			this.opened = true;
		}
		catch (RuntimeException ex) {
			opening.completeExceptionally(ex);
			throw ex;
		}
		opening.complete(connection);
		if (this.closed) {
			// Closed while opening: close() closes it now that it is complete.
			throw new IllegalStateException("The lock engine was closed");
		}
		return connection;
	}

	/** The connection of an opening that completed without failing, else {@code null}. */
	private @Nullable C opened(@Nullable CompletableFuture<C> seen) {
		return (seen != null && seen.isDone() && !seen.isCompletedExceptionally()) ? seen.getNow(null) : null;
	}

	private void closeQuietly(C connection) {
		try {
			this.closer.accept(connection);
		}
		catch (RuntimeException ex) {
			logger.debug("Could not close the connection", ex);
		}
	}

	/** Close the connection; none is opened from now on. */
	void close() {
		this.closed = true;
		CompletableFuture<C> seen = this.current.getAndSet(null);
		if (seen != null) {
			// At once if open, or as soon as an opening in progress completes.
			seen.thenAccept(this::closeQuietly);
		}
	}

	/**
	 * Wait for a future. An interrupt ends the wait when interruptible, keeping the
	 * interrupt status; otherwise the wait goes on and the status is restored after it.
	 * @throws RedisCommandInterruptedException when interrupted while interruptible
	 */
	static <T> T await(Future<T> future, long timeoutNanos, boolean interruptible)
			throws ExecutionException, TimeoutException {
		long deadline = System.nanoTime() + timeoutNanos;
		boolean interrupted = false;
		try {
			while (true) {
				try {
					return future.get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
				}
				catch (InterruptedException ex) {
					if (interruptible) {
						Thread.currentThread().interrupt();
						throw new RedisCommandInterruptedException(ex);
					}
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

}
