package io.github.redislock.annotation;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.StringUtils;

import io.github.redislock.DistributedConcurrencyLimit;
import io.github.redislock.DistributedLock;
import io.github.redislock.DistributedLock.OnFailure;
import io.github.redislock.LockMode;

/**
 * What a method's {@link DistributedLock @DistributedLock} or
 * {@link DistributedConcurrencyLimit @DistributedConcurrencyLimit} declares, read into
 * one form so that everything after (checks, spec, interceptor, AOT hints) serves both: a
 * concurrency limit is a {@link LockMode#PERMIT} lock of one key with a limit.
 *
 * @param annotationType the annotation the method carries, named in error messages
 * @param keys the key templates as written, empty for the default key
 * @param waitTime the wait time as written, placeholders unresolved
 * @param leaseTime the lease time as written, placeholders unresolved
 * @param mode the kind of lock, {@link LockMode#PERMIT} for a concurrency limit
 * @param fair whether the lock is fair
 * @param limit the limit of a concurrency limit as given, {@link Integer#MIN_VALUE} when
 * not given (or for a lock)
 * @param limitString the limit as a string, placeholders unresolved, empty when not given
 * @param onFailure what to do when the lock or permit is not acquired
 * @param fallback the name of the fallback method, empty for none
 * @author redis-lock
 */
record LockDeclaration(Class<? extends Annotation> annotationType, List<String> keys, String waitTime, String leaseTime,
		LockMode mode, boolean fair, int limit, String limitString, OnFailure onFailure, String fallback) {

	/** The value of {@link DistributedConcurrencyLimit#limit()} when it is not given. */
	static final int NO_LIMIT = Integer.MIN_VALUE;

	/**
	 * Read the declaration of a method, directly annotated or through a composed
	 * annotation.
	 * @param method the method
	 * @param beanClass the class of the bean, named when the method carries both
	 * annotations
	 * @return the declaration, or {@code null} when the method carries neither annotation
	 * @throws LockConfigurationException when the method carries both
	 */
	static @Nullable LockDeclaration find(Method method, Class<?> beanClass) {
		DistributedLock lock = AnnotatedElementUtils.findMergedAnnotation(method, DistributedLock.class);
		DistributedConcurrencyLimit limit = AnnotatedElementUtils.findMergedAnnotation(method,
				DistributedConcurrencyLimit.class);
		if (lock != null && limit != null) {
			throw new LockConfigurationException(DistributedConcurrencyLimit.class, beanClass, method, null,
					"the method carries both @DistributedLock and @DistributedConcurrencyLimit, which would take a"
							+ " lock and a permit",
					"Keep one: @DistributedLock to run one call at a time, @DistributedConcurrencyLimit to run up"
							+ " to its limit at once");
		}
		if (lock != null) {
			return new LockDeclaration(DistributedLock.class, List.of(lock.key()), lock.waitTime(), lock.leaseTime(),
					lock.mode(), lock.fair(), NO_LIMIT, "", lock.onFailure(), lock.fallback());
		}
		if (limit != null) {
			return new LockDeclaration(DistributedConcurrencyLimit.class,
					StringUtils.hasLength(limit.key()) ? List.of(limit.key()) : List.of(), limit.waitTime(),
					limit.leaseTime(), LockMode.PERMIT, false, limit.limit(), limit.limitString(), limit.onFailure(),
					limit.fallback());
		}
		return null;
	}

	/**
	 * Whether this is a {@link DistributedConcurrencyLimit @DistributedConcurrencyLimit}.
	 */
	boolean isConcurrencyLimit() {
		return this.annotationType == DistributedConcurrencyLimit.class;
	}

}
