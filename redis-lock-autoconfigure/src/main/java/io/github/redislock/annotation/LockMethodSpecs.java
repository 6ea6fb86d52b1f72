package io.github.redislock.annotation;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.MethodClassKey;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.format.annotation.DurationFormat;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringUtils;
import org.springframework.util.StringValueResolver;

import io.github.redislock.DistributedLock;
import io.github.redislock.DistributedLock.OnFailure;
import io.github.redislock.LockMode;
import io.github.redislock.annotation.LockKeyEvaluator.LockKey;

/**
 * The {@link LockMethodSpec} of each annotated method, built and checked on first use,
 * which is when the bean is created, then cached per method and target class.
 *
 * @author redis-lock
 */
final class LockMethodSpecs {

	private static final String ASYNC_ANNOTATION = "org.springframework.scheduling.annotation.Async";

	/** Types whose work runs after the method returned; matched by name, as optional. */
	private static final Set<String> DEFERRED_TYPES = Set.of("org.reactivestreams.Publisher",
			"java.util.concurrent.Flow$Publisher", "io.reactivex.rxjava3.core.SingleSource",
			"io.reactivex.rxjava3.core.MaybeSource", "io.reactivex.rxjava3.core.CompletableSource",
			"io.reactivex.rxjava3.core.ObservableSource", "kotlinx.coroutines.flow.Flow",
			"kotlinx.coroutines.Deferred");

	private static final String KOTLIN_CONTINUATION = "kotlin.coroutines.Continuation";

	private final Map<MethodClassKey, Optional<LockMethodSpec>> cache = new ConcurrentHashMap<>(64);

	private final Supplier<LockKeyEvaluator> evaluator;

	private volatile @Nullable StringValueResolver valueResolver;

	LockMethodSpecs(Supplier<LockKeyEvaluator> evaluator) {
		this.evaluator = evaluator;
	}

	void setValueResolver(StringValueResolver valueResolver) {
		this.valueResolver = valueResolver;
	}

	/**
	 * Build the specs of every annotated method of a bean class.
	 * @throws LockConfigurationException for the first invalid declaration
	 */
	void validate(Class<?> targetClass) {
		for (Method method : ReflectionUtils.getUniqueDeclaredMethods(targetClass,
				ReflectionUtils.USER_DECLARED_METHODS)) {
			get(method, targetClass);
		}
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
				spec = build(specific, targetClass);
				Optional<LockMethodSpec> existing = this.cache.putIfAbsent(specificKey, spec);
				spec = (existing != null) ? existing : spec;
			}
			this.cache.putIfAbsent(key, spec);
		}
		return spec.orElse(null);
	}

	private Optional<LockMethodSpec> build(Method method, Class<?> targetClass) {
		DistributedLock lock = AnnotatedElementUtils.findMergedAnnotation(method, DistributedLock.class);
		if (lock == null) {
			return Optional.empty();
		}
		Class<?> beanClass = ClassUtils.getUserClass(targetClass);
		checkInterceptable(method, beanClass);
		boolean completionStage = checkReturnType(method, beanClass);
		List<LockKey> keys = new ArrayList<>();
		for (String template : templates(lock, method, beanClass)) {
			keys.add(this.evaluator.get().parse(template, method, beanClass));
		}
		Duration waitTime = duration(lock.waitTime(), "waitTime", true, method, beanClass);
		Duration leaseTime = duration(lock.leaseTime(), "leaseTime", false, method, beanClass);
		checkMode(lock, method, beanClass);
		Method fallback = fallback(lock, method, targetClass, beanClass);
		Class<?> returnType = method.getReturnType();
		if (lock.onFailure() == OnFailure.SKIP && returnType.isPrimitive() && returnType != void.class) {
			throw new LockConfigurationException(beanClass, method, null,
					"onFailure = SKIP returns null when the lock is not acquired, but the method returns "
							+ returnType.getName(),
					"Return " + ClassUtils.resolvePrimitiveIfNecessary(returnType).getSimpleName()
							+ " or an Optional, or use onFailure = THROW or FALLBACK");
		}
		Class<?> valueType = completionStage
				? ResolvableType.forMethodReturnType(method).as(CompletionStage.class).getGeneric(0).resolve()
				: returnType;
		return Optional.of(new LockMethodSpec(method, List.copyOf(keys), waitTime, leaseTime, lock.mode(), lock.fair(),
				lock.onFailure(), fallback, completionStage, valueType == Optional.class,
				beanClass.getSimpleName() + "." + method.getName()));
	}

	private static Set<String> templates(DistributedLock lock, Method method, Class<?> beanClass) {
		if (lock.key().length == 0) {
			return Set.of(beanClass.getSimpleName() + "." + method.getName());
		}
		return new LinkedHashSet<>(Arrays.asList(lock.key()));
	}

	private static void checkInterceptable(Method method, Class<?> beanClass) {
		int modifiers = method.getModifiers();
		String kind = Modifier.isStatic(modifiers) ? "static"
				: Modifier.isPrivate(modifiers) ? "private" : Modifier.isFinal(modifiers) ? "final" : null;
		if (kind != null) {
			throw new LockConfigurationException(beanClass, method, null,
					"the method is " + kind + ", so no proxy can intercept it and it would run without the lock",
					"Make the method public and not static or final");
		}
	}

	/** Check the return type; true when the locks are released by a returned stage. */
	private static boolean checkReturnType(Method method, Class<?> beanClass) {
		Class<?> type = method.getReturnType();
		if (MergedAnnotations.from(method, SearchStrategy.TYPE_HIERARCHY).isPresent(ASYNC_ANNOTATION)
				|| MergedAnnotations.from(beanClass, SearchStrategy.TYPE_HIERARCHY).isPresent(ASYNC_ANNOTATION)) {
			throw new LockConfigurationException(beanClass, method, null,
					"the method is also @Async, so its work would run on another thread after the lock was released",
					"Remove @Async and return a CompletableFuture (such as CompletableFuture.supplyAsync(work,"
							+ " executor)), which keeps the lock until it completes; or put @DistributedLock on a"
							+ " method of another bean that the @Async method calls");
		}
		if (CompletionStage.class.isAssignableFrom(type)) {
			if (type != CompletionStage.class && type != CompletableFuture.class) {
				throw new LockConfigurationException(beanClass, method, null,
						"the method returns " + type.getName() + ", a CompletionStage type it cannot return in place"
								+ " of a future that completes after the release",
						"Declare the return type as CompletableFuture or CompletionStage");
			}
			return true;
		}
		boolean continuation = method.getParameterCount() > 0
				&& method.getParameterTypes()[method.getParameterCount() - 1].getName().equals(KOTLIN_CONTINUATION);
		if (continuation || Future.class.isAssignableFrom(type) || isDeferred(type)) {
			throw new LockConfigurationException(beanClass, method, null,
					(continuation ? "the method is a Kotlin suspending function"
							: "the method returns " + type.getName())
							+ ", whose work goes on after the method returned, so the lock would be released before"
							+ " the work is done",
					"Return a CompletableFuture or CompletionStage, which keeps the lock until it completes, or lock"
							+ " inside the pipeline with LockOperations (for example in Mono.fromCallable)");
		}
		return false;
	}

	/**
	 * Reject a fair read or write lock here, where the message can name the method,
	 * rather than on the first call, where {@link io.github.redislock.LockRequest} would.
	 */
	private static void checkMode(DistributedLock lock, Method method, Class<?> beanClass) {
		if (lock.fair() && lock.mode() != LockMode.EXCLUSIVE) {
			throw new LockConfigurationException(beanClass, method, null,
					"fair = true applies to exclusive locks only, but mode is " + lock.mode()
							+ "; a read/write lock already keeps writers from starving behind readers",
					"Remove fair = true, or use mode = LockMode.EXCLUSIVE for a fair lock");
		}
	}

	private static boolean isDeferred(@Nullable Class<?> type) {
		if (type == null) {
			return false;
		}
		if (DEFERRED_TYPES.contains(type.getName()) || isDeferred(type.getSuperclass())) {
			return true;
		}
		return Arrays.stream(type.getInterfaces()).anyMatch(LockMethodSpecs::isDeferred);
	}

	private @Nullable Duration duration(String value, String attribute, boolean zeroAllowed, Method method,
			Class<?> beanClass) {
		if (!StringUtils.hasText(value)) {
			return null;
		}
		StringValueResolver resolver = this.valueResolver;
		String resolved;
		Duration duration;
		try {
			resolved = (resolver != null) ? resolver.resolveStringValue(value) : value;
			if (!StringUtils.hasText(resolved)) {
				return null;
			}
			if (resolved.contains("${")) {
				throw new IllegalArgumentException("placeholder in '" + resolved + "' could not be resolved");
			}
			duration = DurationFormatterUtils.detectAndParse(resolved.trim(), DurationFormat.Unit.MILLIS);
		}
		catch (RuntimeException ex) {
			throw new LockConfigurationException(beanClass, method, null,
					attribute + " = \"" + value + "\" is not a duration: " + ex.getMessage(),
					"Write a duration such as \"500ms\", \"5s\" or \"PT2S\", a number of milliseconds, or a"
							+ " ${...} placeholder that resolves to one (with a default, such as ${locks.wait:5s})");
		}
		if (duration.isNegative() || (!zeroAllowed && duration.isZero())) {
			throw new LockConfigurationException(beanClass, method, null,
					attribute + " = \"" + value + "\" is " + duration + ", but must be "
							+ (zeroAllowed ? "zero or positive" : "positive"),
					zeroAllowed ? "Use \"0\" for a single attempt, or a positive wait"
							: "Use a positive lease, or leave leaseTime empty for watchdog renewal");
		}
		return duration;
	}

	private static @Nullable Method fallback(DistributedLock lock, Method method, Class<?> targetClass,
			Class<?> beanClass) {
		String name = lock.fallback();
		if (lock.onFailure() != OnFailure.FALLBACK) {
			if (StringUtils.hasText(name)) {
				throw new LockConfigurationException(beanClass, method, null,
						"fallback = \"" + name + "\" is set, but onFailure is " + lock.onFailure(),
						"Set onFailure = OnFailure.FALLBACK to call it, or remove the fallback");
			}
			return null;
		}
		String signature = name + Arrays.stream(method.getParameterTypes())
			.map(Class::getSimpleName)
			.collect(Collectors.joining(", ", "(", ")"));
		String declare = "Declare " + method.getReturnType().getSimpleName() + " " + signature + " in "
				+ beanClass.getSimpleName() + ": it is called with the same arguments when the lock is not acquired";
		if (!StringUtils.hasText(name)) {
			throw new LockConfigurationException(beanClass, method, null,
					"onFailure = FALLBACK needs the name of a fallback method", "Name it in fallback = \"...\"");
		}
		Method fallback = ReflectionUtils.findMethod(targetClass, name, method.getParameterTypes());
		if (fallback == null) {
			throw new LockConfigurationException(beanClass, method, null,
					"there is no fallback method " + signature + " with the same parameters as the annotated method",
					declare);
		}
		if (!ClassUtils.isAssignable(method.getReturnType(), fallback.getReturnType())) {
			throw new LockConfigurationException(beanClass, method, null,
					"fallback method " + signature + " returns " + fallback.getReturnType().getSimpleName()
							+ ", which is not assignable to the annotated method's "
							+ method.getReturnType().getSimpleName(),
					declare);
		}
		ReflectionUtils.makeAccessible(fallback);
		return fallback;
	}

}
