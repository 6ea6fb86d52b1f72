package io.github.redislock.engine;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
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

	/**
	 * Create a shared connection.
	 * @param opener opens a connection, waiting for Redis; throws when it cannot
	 * @param usable whether an open connection can still be used
	 * @param closer closes a connection that is replaced, or at {@link #close()}
	 */
	SharedConnection(Supplier<C> opener, Predicate<C> usable, Consumer<C> closer) {
		this.opener = opener;
		this.usable = usable;
		this.closer = closer;
	}

	/**
	 * The usable connection, opened first when there is none; an interrupt ends the wait
	 * for another thread's opening.
	 * @throws RedisCommandInterruptedException when interrupted while another thread
	 * opened it
	 * @throws RuntimeException from the Redis client when opening failed, here or in the
	 * thread whose opening this one waited for
	 */
	C get() {
		return get(true);
	}

	/**
	 * The usable connection as {@link #get()}, waiting for another thread's opening even
	 * when interrupted, whose interrupt status is kept: for a release, which an interrupt
	 * must not cut short.
	 */
	C getUninterruptibly() {
		return get(false);
	}

	private C get(boolean interruptible) {
		while (true) {
			CompletableFuture<C> seen = this.current.get();
			if (seen != null && !seen.isDone()) {
				return await(seen, interruptible);
			}
			C connection = (seen != null) ? opened(seen) : null;
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
	 * when another thread opens it as soon as that opening completes, and otherwise once
	 * opened on the given executor, since opening waits for Redis.
	 * @return completes with the connection; exceptionally when opening failed
	 * @throws RejectedExecutionException when the executor refused the opening
	 */
	CompletionStage<C> getWithoutBlocking(Executor executor) {
		CompletableFuture<C> seen = this.current.get();
		if (seen != null && !seen.isDone()) {
			return seen.minimalCompletionStage();
		}
		C connection = (seen != null) ? opened(seen) : null;
		if (connection != null && this.usable.test(connection)) {
			return CompletableFuture.completedFuture(connection);
		}
		return CompletableFuture.supplyAsync(this::get, executor);
	}

	/**
	 * The connection if one is open now, usable or not; never waits.
	 */
	@Nullable C now() {
		CompletableFuture<C> seen = this.current.get();
		return (seen != null && seen.isDone()) ? opened(seen) : null;
	}

	/** Whether a connection was opened once at least. */
	boolean wasOpened() {
		return this.opened;
	}

	/**
	 * Open a usable connection on the given executor unless there is one or one is being
	 * opened, for a caller that must not wait for Redis; a failure is left for the next
	 * caller to find.
	 */
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
			// The engine is closing.
			logger.debug("Could not open the connection in the background", ex);
		}
	}

	/**
	 * Close a connection that failed, unless it was replaced already, so that the next
	 * caller opens a new one.
	 */
	void replace(C failed) {
		CompletableFuture<C> seen = this.current.get();
		if (seen != null && seen.isDone() && opened(seen) == failed && this.current.compareAndSet(seen, null)) {
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

	private C await(CompletableFuture<C> opening, boolean interruptible) {
		boolean interrupted = false;
		try {
			while (true) {
				try {
					return opening.get();
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
		catch (ExecutionException ex) {
			// The opener's own exception, thrown in its thread.
			throw (ex.getCause() instanceof RuntimeException runtime) ? runtime
					: new IllegalStateException(ex.getCause());
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private @Nullable C opened(CompletableFuture<C> done) {
		return done.isCompletedExceptionally() ? null : done.getNow(null);
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

}
