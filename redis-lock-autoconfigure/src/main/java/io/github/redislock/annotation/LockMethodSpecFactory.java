package io.github.redislock.annotation;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.core.ResolvableType;
import org.springframework.format.annotation.DurationFormat;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringUtils;
import org.springframework.util.StringValueResolver;

import io.github.redislock.DistributedLock;
import io.github.redislock.DistributedLock.OnFailure;
import io.github.redislock.LockMode;
import io.github.redislock.LockRules;
import io.github.redislock.LockRules.Violation;
import io.github.redislock.annotation.LockKeyEvaluator.LockKey;

/**
 * Builds the {@link LockMethodSpec} of a {@link DistributedLock @DistributedLock} or
 * {@link io.github.redislock.DistributedConcurrencyLimit @DistributedConcurrencyLimit}
 * method: resolves its placeholders, parses its key templates, durations and limit, and
 * finds its fallback, running the {@link LockMethodChecks} on the way. A concurrency
 * limit becomes the spec of a {@link LockMode#PERMIT} lock with its limit, so that the
 * interceptor runs both alike.
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
		Class<?> beanClass = ClassUtils.getUserClass(targetClass);
		LockDeclaration lock = LockDeclaration.find(method, beanClass);
		if (lock == null) {
			return null;
		}
		LockMethodChecks checks = new LockMethodChecks(lock.annotationType(), method, beanClass);
		checks.interceptable();
		boolean completionStage = checks.returnType();
		ReactiveReturn reactive = completionStage ? null : checks.reactiveReturn();
		List<LockKey> keys = new ArrayList<>();
		for (String template : templates(lock, method, beanClass)) {
			checks.key(template);
			try {
				keys.add(this.evaluator.get().parse(template, method, beanClass));
			}
			catch (LockConfigurationException ex) {
				throw ex.forAnnotation(lock.annotationType());
			}
		}
		Duration waitTime = duration(lock.waitTime(), "waitTime", LockRules::waitTime, checks);
		Duration leaseTime = duration(lock.leaseTime(), "leaseTime", LockRules::leaseTime, checks);
		checks.mode(lock);
		int limit = lock.isConcurrencyLimit() ? limit(lock, checks) : 1;
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
		return new LockMethodSpec(method, List.copyOf(keys), waitTime, leaseTime, lock.mode(), limit, lock.fair(),
				lock.onFailure(), fallback, completionStage, reactive, valueType == Optional.class,
				beanClass.getSimpleName() + "." + method.getName());
	}

	private static Set<String> templates(LockDeclaration lock, Method method, Class<?> beanClass) {
		if (lock.keys().isEmpty()) {
			return Set.of(beanClass.getSimpleName() + "." + method.getName());
		}
		return new LinkedHashSet<>(lock.keys());
	}

	/**
	 * Resolve and check the limit of a concurrency limit: {@code limitString} when given,
	 * its placeholders resolved once, here, else {@code limit}.
	 */
	private int limit(LockDeclaration lock, LockMethodChecks checks) {
		String value = lock.limitString();
		if (!StringUtils.hasText(value)) {
			if (lock.limit() == LockDeclaration.NO_LIMIT) {
				throw checks.noLimit();
			}
			checks.limit("limit = " + lock.limit(), lock.limit());
			return lock.limit();
		}
		StringValueResolver resolver = this.valueResolver;
		String resolved;
		try {
			resolved = (resolver != null) ? resolver.resolveStringValue(value) : value;
		}
		catch (RuntimeException ex) {
			throw checks.notALimit(value, "could not be resolved: " + ex.getMessage());
		}
		if (resolved == null || resolved.contains("${")) {
			throw checks.notALimit(value, "could not be resolved");
		}
		int limit;
		try {
			limit = Integer.parseInt(resolved.trim());
		}
		catch (NumberFormatException ex) {
			throw checks.notALimit(value, value.equals(resolved) ? "is not a whole number"
					: "resolves to '" + resolved + "', not a whole number");
		}
		checks.limit("limitString = \"" + value + "\"" + (value.equals(resolved) ? "" : " (" + resolved + ")"), limit);
		return limit;
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

	private static @Nullable Method fallback(LockDeclaration lock, Method method, Class<?> targetClass) {
		String name = lock.fallback();
		if (lock.onFailure() != OnFailure.FALLBACK || !StringUtils.hasText(name)) {
			return null;
		}
		return ReflectionUtils.findMethod(targetClass, name, method.getParameterTypes());
	}

}
