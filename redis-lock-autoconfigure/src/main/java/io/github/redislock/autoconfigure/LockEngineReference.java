package io.github.redislock.autoconfigure;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

import io.github.redislock.LockDiagnostics;
import io.github.redislock.LockEngine;
import io.github.redislock.LockSnapshot;
import io.github.redislock.SubscriptionStatus;

/**
 * A {@link LockEngine} bean, reached without creating it. The auto-configured engine is
 * lazy: the auto-configured template creates it at start-up, but an application that
 * defines its own {@link io.github.redislock.LockOperations} may never use it, and then
 * it opens no connection and starts no thread. What shuts the engine down or reports on
 * it (the health indicator, the endpoint, the gauges) goes through this reference, so
 * that it never creates the engine itself.
 *
 * @author redis-lock
 */
public final class LockEngineReference {

	private final ConfigurableListableBeanFactory beanFactory;

	private final String beanName;

	/**
	 * Refer to the engine bean of the given name.
	 * @param beanFactory the bean factory that defines it
	 * @param beanName its name
	 */
	public LockEngineReference(ConfigurableListableBeanFactory beanFactory, String beanName) {
		this.beanFactory = beanFactory;
		this.beanName = beanName;
	}

	/**
	 * Refer to the single {@link LockEngine} candidate of the bean factory: its only
	 * engine bean, or its primary one, as
	 * {@code @ConditionalOnSingleCandidate(LockEngine.class)} found it.
	 * @param beanFactory the bean factory
	 * @return the reference
	 * @throws IllegalStateException when there is no single candidate
	 */
	public static LockEngineReference singleCandidate(ConfigurableListableBeanFactory beanFactory) {
		List<String> names = List.of(beanFactory.getBeanNamesForType(LockEngine.class, true, false));
		List<String> candidates = (names.size() == 1) ? names
				: names.stream()
					.filter((name) -> beanFactory.containsBeanDefinition(name)
							&& beanFactory.getBeanDefinition(name).isPrimary())
					.toList();
		if (candidates.size() != 1) {
			throw new IllegalStateException("Expected a single LockEngine bean, or a primary one, but found " + names);
		}
		return new LockEngineReference(beanFactory, candidates.get(0));
	}

	/**
	 * Return the engine if something created it.
	 * @return the engine, or {@code null} when it was not created
	 */
	public @Nullable LockEngine ifCreated() {
		return this.beanFactory.containsSingleton(this.beanName)
				? this.beanFactory.getBean(this.beanName, LockEngine.class) : null;
	}

	/**
	 * Return the engine's diagnostics, read on each call from the engine if it was
	 * created by then; until then they report what an engine that nothing used reports:
	 * no lock held or awaited, and no subscription.
	 * @return the diagnostics
	 */
	public LockDiagnostics diagnostics() {
		return new CreatedEngineDiagnostics();
	}

	/**
	 * Diagnostics that follow the engine once it exists.
	 */
	private final class CreatedEngineDiagnostics implements LockDiagnostics {

		@Override
		public int heldCount() {
			LockEngine engine = ifCreated();
			return (engine != null) ? engine.diagnostics().heldCount() : 0;
		}

		@Override
		public int renewedCount() {
			LockEngine engine = ifCreated();
			return (engine != null) ? engine.diagnostics().renewedCount() : 0;
		}

		@Override
		public int waiterCount() {
			LockEngine engine = ifCreated();
			return (engine != null) ? engine.diagnostics().waiterCount() : 0;
		}

		@Override
		public int sleepingWaiterCount() {
			LockEngine engine = ifCreated();
			return (engine != null) ? engine.diagnostics().sleepingWaiterCount() : 0;
		}

		@Override
		public int subscribedChannelCount() {
			LockEngine engine = ifCreated();
			return (engine != null) ? engine.diagnostics().subscribedChannelCount() : 0;
		}

		@Override
		public int retriedReleaseCount() {
			LockEngine engine = ifCreated();
			return (engine != null) ? engine.diagnostics().retriedReleaseCount() : 0;
		}

		@Override
		public SubscriptionStatus subscriptionStatus() {
			LockEngine engine = ifCreated();
			return (engine != null) ? engine.diagnostics().subscriptionStatus() : SubscriptionStatus.NONE;
		}

		@Override
		public LockSnapshot snapshot() {
			LockEngine engine = ifCreated();
			return (engine != null) ? engine.diagnostics().snapshot() : new LockSnapshot(List.of(), List.of());
		}

		@Override
		public String toString() {
			return "LockDiagnostics[" + LockEngineReference.this.beanName + "]";
		}

	}

}
