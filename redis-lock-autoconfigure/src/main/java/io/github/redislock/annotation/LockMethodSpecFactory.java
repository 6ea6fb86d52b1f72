package io.github.redislock.annotation;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.format.annotation.DurationFormat;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringUtils;
import org.springframework.util.StringValueResolver;

import io.github.redislock.DistributedLock;
import io.github.redislock.DistributedLock.OnFailure;
import io.github.redislock.LockRules;
import io.github.redislock.LockRules.Violation;
import io.github.redislock.annotation.LockKeyEvaluator.LockKey;

/**
 * Builds the {@link LockMethodSpec} of a {@link DistributedLock @DistributedLock} method:
 * resolves its placeholders, parses its key templates and durations, and finds its
 * fallback, running the {@link LockMethodChecks} on the way.
 *
 * @author redis-lock
 */
final class LockMethodSpecFactory {

	private final Supplier<LockKeyEvaluator> evaluator;

	private volatile @Nullable StringValueResolver valueResolver;

	LockMethodSpecFactory(Supplier<LockKeyEvaluator> evaluator) {
		this.evaluator = evaluator;
	}

	void setValueResolver(StringValueResolver valueResolver) {
		this.valueResolver = valueResolver;
	}

	/**
	 * Build the spec of a method as invoked on a target class.
	 * @param method the most specific method
	 * @param targetClass the class of the target object
	 * @return the spec, or {@code null} when the method is not annotated
	 * @throws LockConfigurationException when the declaration is invalid
	 */
	@Nullable LockMethodSpec build(Method method, Class<?> targetClass) {
		DistributedLock lock = AnnotatedElementUtils.findMergedAnnotation(method, DistributedLock.class);
		if (lock == null) {
			return null;
		}
		Class<?> beanClass = ClassUtils.getUserClass(targetClass);
		LockMethodChecks checks = new LockMethodChecks(method, beanClass);
		checks.interceptable();
		boolean completionStage = checks.returnType();
		ReactiveReturn reactive = completionStage ? null : checks.reactiveReturn();
		List<LockKey> keys = new ArrayList<>();
		for (String template : templates(lock, method, beanClass)) {
			checks.key(template);
			keys.add(this.evaluator.get().parse(template, method, beanClass));
		}
		Duration waitTime = duration(lock.waitTime(), "waitTime", LockRules::waitTime, checks);
		Duration leaseTime = duration(lock.leaseTime(), "leaseTime", LockRules::leaseTime, checks);
		checks.mode(lock);
		Method fallback = fallback(lock, method, targetClass);
		checks.fallback(lock, fallback);
		checks.skippedResult(lock);
		checks.skippedResult(lock, reactive);
		if (fallback != null) {
			ReflectionUtils.makeAccessible(fallback);
		}
		Class<?> valueType = completionStage
				? ResolvableType.forMethodReturnType(method).as(CompletionStage.class).getGeneric(0).resolve()
				: method.getReturnType();
		return new LockMethodSpec(method, List.copyOf(keys), waitTime, leaseTime, lock.mode(), lock.fair(),
				lock.onFailure(), fallback, completionStage, reactive, valueType == Optional.class,
				beanClass.getSimpleName() + "." + method.getName());
	}

	private static Set<String> templates(DistributedLock lock, Method method, Class<?> beanClass) {
		if (lock.key().length == 0) {
			return Set.of(beanClass.getSimpleName() + "." + method.getName());
		}
		return new LinkedHashSet<>(Arrays.asList(lock.key()));
	}

	private @Nullable Duration duration(String value, String attribute, Function<Duration, @Nullable Violation> rule,
			LockMethodChecks checks) {
		if (!StringUtils.hasText(value)) {
			return null;
		}
		StringValueResolver resolver = this.valueResolver;
		Duration duration;
		try {
			String resolved = (resolver != null) ? resolver.resolveStringValue(value) : value;
			if (!StringUtils.hasText(resolved)) {
				return null;
			}
			if (resolved.contains("${")) {
				throw new IllegalArgumentException("placeholder in '" + resolved + "' could not be resolved");
			}
			duration = DurationFormatterUtils.detectAndParse(resolved.trim(), DurationFormat.Unit.MILLIS);
		}
		catch (RuntimeException ex) {
			throw checks.notADuration(attribute, value, ex);
		}
		checks.duration(attribute, value, rule.apply(duration));
		return duration;
	}

	private static @Nullable Method fallback(DistributedLock lock, Method method, Class<?> targetClass) {
		String name = lock.fallback();
		if (lock.onFailure() != OnFailure.FALLBACK || !StringUtils.hasText(name)) {
			return null;
		}
		return ReflectionUtils.findMethod(targetClass, name, method.getParameterTypes());
	}

}
