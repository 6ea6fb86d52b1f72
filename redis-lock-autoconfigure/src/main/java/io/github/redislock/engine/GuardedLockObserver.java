package io.github.redislock.engine;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.log.LogMessage;

import io.github.redislock.LockObserver;

/**
 * Calls an application's {@link LockObserver}, logging what it throws instead: a failing
 * metric must not leave a lock acquired but never returned, nor stop the watchdog, whose
 * scheduled task would end at its first exception.
 *
 * @author redis-lock
 */
final class GuardedLockObserver implements LockObserver {

	private static final Log logger = LogFactory.getLog(GuardedLockObserver.class);

	private final LockObserver delegate;

	GuardedLockObserver(LockObserver delegate) {
		this.delegate = delegate;
	}

	@Override
	public @Nullable Object acquireStarted(String key, @Nullable String name) {
		try {
			return this.delegate.acquireStarted(key, name);
		}
		catch (RuntimeException ex) {
			failed("acquireStarted", key, ex);
			return null;
		}
	}

	@Override
	public void acquireEnded(String key, @Nullable Object context, AcquireOutcome outcome, long waitNanos,
			@Nullable Throwable failure) {
		try {
			this.delegate.acquireEnded(key, context, outcome, waitNanos, failure);
		}
		catch (RuntimeException ex) {
			failed("acquireEnded", key, ex);
		}
	}

	@Override
	public @Nullable Object held(String key, @Nullable String name, long fencingToken,
			@Nullable Object acquireContext) {
		try {
			return this.delegate.held(key, name, fencingToken, acquireContext);
		}
		catch (RuntimeException ex) {
			failed("held", key, ex);
			return null;
		}
	}

	@Override
	public void released(String key, @Nullable Object holdContext, ReleaseOutcome outcome,
			@Nullable Throwable failure) {
		try {
			this.delegate.released(key, holdContext, outcome, failure);
		}
		catch (RuntimeException ex) {
			failed("released", key, ex);
		}
	}

	@Override
	public void renewed(String key, @Nullable Object holdContext) {
		try {
			this.delegate.renewed(key, holdContext);
		}
		catch (RuntimeException ex) {
			failed("renewed", key, ex);
		}
	}

	@Override
	public void renewalFailed(String key, @Nullable Object holdContext, Throwable failure) {
		try {
			this.delegate.renewalFailed(key, holdContext, failure);
		}
		catch (RuntimeException ex) {
			failed("renewalFailed", key, ex);
		}
	}

	@Override
	public void lost(String key, long fencingToken, @Nullable Object holdContext) {
		try {
			this.delegate.lost(key, fencingToken, holdContext);
		}
		catch (RuntimeException ex) {
			failed("lost", key, ex);
		}
	}

	private void failed(String method, String key, RuntimeException ex) {
		logger.warn(LogMessage.format("Lock observer %s failed in %s for lock '%s'; the lock operation goes on",
				this.delegate, method, key), ex);
	}

}
