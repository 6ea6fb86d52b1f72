package io.github.redislock.annotation;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.MethodClassKey;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringValueResolver;

/**
 * The {@link LockMethodSpec} of each annotated method, built and checked on first use,
 * which is when the bean is created, then cached per method and target class. This is the
 * one cache of the key pipeline: a spec holds its parsed key templates, so a template is
 * parsed once per method however often the method is called.
 *
 * @author redis-lock
 */
final class LockMethodSpecs {

	private final Map<MethodClassKey, Optional<LockMethodSpec>> cache = new ConcurrentHashMap<>(64);

	private final LockMethodSpecFactory factory;

	LockMethodSpecs(Supplier<LockKeyEvaluator> evaluator) {
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
	 * Return the spec of a method as invoked on a target class, or {@code null} when it
	 * is not annotated.
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
