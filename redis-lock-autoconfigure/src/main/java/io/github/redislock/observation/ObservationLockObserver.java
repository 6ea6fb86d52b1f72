package io.github.redislock.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import io.github.redislock.LockObserver;

/**
 * A {@link LockObserver} that records lock acquisitions and holds as Micrometer
 * {@link Observation observations}, so that one instrumentation gives both metrics (with
 * a {@code DefaultMeterObservationHandler}: timers {@code redis.lock.acquire} and
 * {@code redis.lock.held}, and their {@code .active} long task timers) and traces (spans
 * {@code acquire <lock name>} and {@code held <lock name>}).
 *
 * <p>
 * Observations are tagged with the {@linkplain LockNames lock name}, never with the raw
 * key unless asked: see {@link LockObservationDocumentation}. A hold observation is not
 * opened as the current scope, since a lock may be released from another thread than the
 * one that took it.
 *
 * <pre class="code">
 * LockTemplate locks = new LockTemplate(new RedisLockEngine(connectionFactory, LockOptions.defaults(),
 *         new ObservationLockObserver(observationRegistry)));
 * </pre>
 *
 * @author redis-lock
 */
public class ObservationLockObserver implements LockObserver {

	private final ObservationRegistry registry;

	private final LockNames names;

	private final LockAcquireObservationConvention defaultAcquireConvention;

	private final LockHoldObservationConvention defaultHoldConvention;

	private @Nullable LockAcquireObservationConvention acquireConvention;

	private @Nullable LockHoldObservationConvention holdConvention;

	/**
	 * Create an observer with the default lock names that leaves keys out.
	 * @param registry the registry to report to
	 */
	public ObservationLockObserver(ObservationRegistry registry) {
		this(registry, LockNames.defaults(), false);
	}

	/**
	 * Create an observer.
	 * @param registry the registry to report to
	 * @param names how to name locks in tags
	 * @param includeKey whether to add each lock's key, which may contain ids, as a
	 * high-cardinality key value (for traces, not metrics)
	 */
	public ObservationLockObserver(ObservationRegistry registry, LockNames names, boolean includeKey) {
		this.registry = registry;
		this.names = names;
		this.defaultAcquireConvention = new DefaultLockAcquireObservationConvention(includeKey);
		this.defaultHoldConvention = new DefaultLockHoldObservationConvention(includeKey);
	}

	/**
	 * Use a convention of the application's for acquisitions instead of
	 * {@link DefaultLockAcquireObservationConvention}.
	 * @param convention the convention, or {@code null} for the default
	 */
	public void setAcquireConvention(@Nullable LockAcquireObservationConvention convention) {
		this.acquireConvention = convention;
	}

	/**
	 * Use a convention of the application's for holds instead of
	 * {@link DefaultLockHoldObservationConvention}.
	 * @param convention the convention, or {@code null} for the default
	 */
	public void setHoldConvention(@Nullable LockHoldObservationConvention convention) {
		this.holdConvention = convention;
	}

	@Override
	public @Nullable Object acquireStarted(String key, @Nullable String name) {
		if (this.registry.isNoop()) {
			return null;
		}
		LockAcquireContext context = new LockAcquireContext(key, this.names.nameOf(key, name));
		return LockObservationDocumentation.ACQUIRE
			.observation(this.acquireConvention, this.defaultAcquireConvention, () -> context, this.registry)
			.start();
	}

	@Override
	public void acquireEnded(String key, @Nullable Object context, AcquireOutcome outcome, long waitNanos,
			@Nullable Throwable failure) {
		if (context instanceof Observation observation
				&& observation.getContext() instanceof LockAcquireContext acquireContext) {
			acquireContext.setOutcome(outcome);
			if (failure != null) {
				observation.error(failure);
			}
			observation.stop();
		}
	}

	@Override
	public @Nullable Object held(String key, @Nullable String name, long fencingToken,
			@Nullable Object acquireContext) {
		if (this.registry.isNoop()) {
			return null;
		}
		String lockName = (acquireContext instanceof Observation observation
				&& observation.getContext() instanceof LockAcquireContext context) ? context.getLockName()
						: this.names.nameOf(key, name);
		LockHoldContext context = new LockHoldContext(key, lockName, fencingToken);
		return LockObservationDocumentation.HELD
			.observation(this.holdConvention, this.defaultHoldConvention, () -> context, this.registry)
			.start();
	}

	@Override
	public void released(String key, @Nullable Object holdContext, ReleaseOutcome outcome,
			@Nullable Throwable failure) {
		if (holdContext instanceof Observation observation
				&& observation.getContext() instanceof LockHoldContext context) {
			context.setOutcome(outcome);
			if (failure != null) {
				observation.error(failure);
			}
			observation.stop();
		}
	}

}
