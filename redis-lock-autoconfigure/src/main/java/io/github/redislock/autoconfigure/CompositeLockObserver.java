package io.github.redislock.autoconfigure;

import java.util.List;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockObserver;

/**
 * The {@link LockObserver} beans of an application as one: each gets its own context
 * back.
 *
 * @author redis-lock
 */
final class CompositeLockObserver implements LockObserver {

	private final LockObserver[] observers;

	private CompositeLockObserver(List<LockObserver> observers) {
		this.observers = observers.toArray(LockObserver[]::new);
	}

	/**
	 * Return the observers as one.
	 * @return the single observer, a composite of several, or {@code null} for none
	 */
	static @Nullable LockObserver of(List<LockObserver> observers) {
		return switch (observers.size()) {
			case 0 -> null;
			case 1 -> observers.get(0);
			default -> new CompositeLockObserver(observers);
		};
	}

	@Override
	public Object acquireStarted(String key, @Nullable String name) {
		@Nullable Object[] contexts = new Object[this.observers.length];
		for (int i = 0; i < this.observers.length; i++) {
			contexts[i] = this.observers[i].acquireStarted(key, name);
		}
		return contexts;
	}

	@Override
	public void acquireEnded(String key, @Nullable Object context, AcquireOutcome outcome, long waitNanos,
			@Nullable Throwable failure) {
		for (int i = 0; i < this.observers.length; i++) {
			this.observers[i].acquireEnded(key, contextOf(context, i), outcome, waitNanos, failure);
		}
	}

	@Override
	public Object held(String key, @Nullable String name, long fencingToken, @Nullable Object acquireContext) {
		@Nullable Object[] contexts = new Object[this.observers.length];
		for (int i = 0; i < this.observers.length; i++) {
			contexts[i] = this.observers[i].held(key, name, fencingToken, contextOf(acquireContext, i));
		}
		return contexts;
	}

	@Override
	public void released(String key, @Nullable Object holdContext, ReleaseOutcome outcome,
			@Nullable Throwable failure) {
		for (int i = 0; i < this.observers.length; i++) {
			this.observers[i].released(key, contextOf(holdContext, i), outcome, failure);
		}
	}

	@Override
	public void renewed(String key, @Nullable Object holdContext) {
		for (int i = 0; i < this.observers.length; i++) {
			this.observers[i].renewed(key, contextOf(holdContext, i));
		}
	}

	@Override
	public void renewalFailed(String key, @Nullable Object holdContext, Throwable failure) {
		for (int i = 0; i < this.observers.length; i++) {
			this.observers[i].renewalFailed(key, contextOf(holdContext, i), failure);
		}
	}

	@Override
	public void lost(String key, long fencingToken, @Nullable Object holdContext) {
		for (int i = 0; i < this.observers.length; i++) {
			this.observers[i].lost(key, fencingToken, contextOf(holdContext, i));
		}
	}

	private static @Nullable Object contextOf(@Nullable Object context, int index) {
		return (context instanceof Object[] contexts) ? contexts[index] : null;
	}

	@Override
	public String toString() {
		return "CompositeLockObserver" + List.of(this.observers);
	}

}
