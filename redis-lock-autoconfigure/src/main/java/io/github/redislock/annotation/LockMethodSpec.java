package io.github.redislock.annotation;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.MethodClassKey;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringValueResolver;

import io.github.redislock.DistributedLock.OnFailure;
import io.github.redislock.LockMode;
import io.github.redislock.LockRequest;
import io.github.redislock.annotation.LockKeyEvaluator.LockKey;

/**
 * What a {@link io.github.redislock.DistributedLock @DistributedLock} or
 * {@link io.github.redislock.DistributedConcurrencyLimit @DistributedConcurrencyLimit}
 * method needs at call time, resolved and checked once when its bean is created.
 *
 * @param method the most specific method, whose parameter names the keys use
 * @param keys the parsed key templates
 * @param waitTime the wait time, or {@code null} for the configured default
 * @param leaseTime the lease, or {@code null} for the configured default
 * @param mode the kind of lock taken on every key, {@link LockMode#PERMIT} for a
 * concurrency limit
 * @param limit how many may hold a permit of the key at once, with
 * {@link LockMode#PERMIT}; 1 otherwise, unused
 * @param fair whether waiters for every key are served in the order they asked
 * @param onFailure what to do when the locks stay held elsewhere
 * @param fallback the method to call instead, with {@link OnFailure#FALLBACK}
 * @param completionStage whether the method returns a {@code CompletionStage}, whose
 * completion releases the locks
 * @param reactive how the method returns a publisher, which holds the locks from
 * subscription to termination, or {@code null} when it does not
 * @param optionalResult whether the method's result (or its future's value) is an
 * {@code Optional}, which {@link OnFailure#SKIP} returns empty
 * @param name the name metrics and traces report the locks under:
 * {@code BeanClassSimpleName.method}, whatever the keys
 * @author redis-lock
 */
record LockMethodSpec(Method method, List<LockKey> keys, @Nullable Duration waitTime, @Nullable Duration leaseTime,
		LockMode mode, int limit, boolean fair, OnFailure onFailure, @Nullable Method fallback, boolean completionStage,
		@Nullable ReactiveReturn reactive, boolean optionalResult, String name) {

	LockRequest request(String key, @Nullable Duration waitTime) {
		// A lock released when the returned stage completes belongs to that stage, not to
		// the calling thread, which could otherwise re-enter it while the stage runs.
		LockRequest request = LockRequest.of(key)
			.mode(this.mode)
			.fair(this.fair)
			.reentrant(!this.completionStage)
			.name(this.name);
		if (this.mode == LockMode.PERMIT) {
			request = request.limit(this.limit);
		}
		if (waitTime != null) {
			request = request.waitTime(waitTime);
		}
		return (this.leaseTime != null) ? request.leaseTime(this.leaseTime) : request;
	}

	/** The result of a call skipped by {@link OnFailure#SKIP}. */
	@Nullable Object skippedResult() {
		Object value = this.optionalResult ? Optional.empty() : null;
		return this.completionStage ? CompletableFuture.completedFuture(value) : value;
	}

	boolean isLiteral() {
		return this.keys.stream().allMatch(LockKey::isLiteral);
	}

	/**
	 * The spec of each annotated method, built and checked on first use (when the bean is
	 * created), then cached per method and target class. The one cache of the key
	 * pipeline: a spec holds its parsed key templates, parsed once per method.
	 */
	static final class Cache {

		private final Map<MethodClassKey, Optional<LockMethodSpec>> cache = new ConcurrentHashMap<>(64);

		private final LockMethodSpecFactory factory;

		Cache(Supplier<LockKeyEvaluator> evaluator) {
			this.factory = new LockMethodSpecFactory(evaluator);
		}

		void setValueResolver(StringValueResolver valueResolver) {
			this.factory.setValueResolver(valueResolver);
		}

		/**
		 * Build the specs of every annotated method of a bean class.
		 * @return whether a method returns a publisher (or suspends), which locks through
		 * {@code ReactiveLockOperations}
		 * @throws LockConfigurationException for the first invalid declaration
		 */
		boolean validate(Class<?> targetClass) {
			boolean reactive = false;
			for (Method method : ReflectionUtils.getUniqueDeclaredMethods(targetClass,
					ReflectionUtils.USER_DECLARED_METHODS)) {
				LockMethodSpec spec = get(method, targetClass);
				reactive |= spec != null && spec.reactive() != null;
			}
			return reactive;
		}

		/**
		 * Return the spec of a method as invoked on a target class, or {@code null} when
		 * it is not annotated.
		 * @throws LockConfigurationException when the declaration is invalid
		 */
		@Nullable LockMethodSpec get(Method method, Class<?> targetClass) {
			MethodClassKey key = new MethodClassKey(method, targetClass);
			Optional<LockMethodSpec> spec = this.cache.get(key);
			if (spec == null) {
				// An interface method, as a JDK proxy invokes it, shares the spec of its
				// implementation, which is the one validated when the bean was created.
				Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
				MethodClassKey specificKey = new MethodClassKey(specific, targetClass);
				spec = this.cache.get(specificKey);
				if (spec == null) {
					// Built outside the map: building may create the evaluator bean.
					spec = Optional.ofNullable(this.factory.build(specific, targetClass));
					Optional<LockMethodSpec> existing = this.cache.putIfAbsent(specificKey, spec);
					spec = (existing != null) ? existing : spec;
				}
				this.cache.putIfAbsent(key, spec);
			}
			return spec.orElse(null);
		}

	}

}
