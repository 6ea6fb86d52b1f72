package io.github.redislock.annotation;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import org.springframework.core.KotlinDetector;
import org.springframework.core.MethodParameter;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;

import io.github.redislock.DistributedLock;
import io.github.redislock.DistributedLock.OnFailure;
import io.github.redislock.LockMode;
import io.github.redislock.LockRules;
import io.github.redislock.LockRules.Violation;

/**
 * The start-up checks of one {@link DistributedLock @DistributedLock} or
 * {@link io.github.redislock.DistributedConcurrencyLimit @DistributedConcurrencyLimit}
 * method, read into a {@link LockDeclaration}. Option values are checked against
 * {@link LockRules}, as everywhere else; the rest are checks only an annotated method
 * needs: that a proxy can intercept it, that its locks can be held until its work is
 * done, and that its fallback exists. Each failed check throws a
 * {@link LockConfigurationException} naming the method and the attribute at fault.
 *
 * @author redis-lock
 */
final class LockMethodChecks {

	/** Types whose work runs after the method returned; matched by name, as optional. */
	private static final Set<String> DEFERRED_TYPES = Set.of("org.reactivestreams.Publisher",
			"java.util.concurrent.Flow$Publisher", "io.reactivex.rxjava3.core.SingleSource",
			"io.reactivex.rxjava3.core.MaybeSource", "io.reactivex.rxjava3.core.CompletableSource",
			"io.reactivex.rxjava3.core.ObservableSource", "kotlinx.coroutines.flow.Flow",
			"kotlinx.coroutines.Deferred");

	private static final String KOTLIN_FLOW = "kotlinx.coroutines.flow.Flow";

	private static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Mono",
			LockMethodChecks.class.getClassLoader());

	/** What Spring's proxies need to run a suspending function as a publisher. */
	private static final boolean COROUTINES_REACTOR_PRESENT = ClassUtils.isPresent("kotlinx.coroutines.reactor.MonoKt",
			LockMethodChecks.class.getClassLoader());

	private final Class<? extends Annotation> annotationType;

	private final Method method;

	private final Class<?> beanClass;

	LockMethodChecks(Class<? extends Annotation> annotationType, Method method, Class<?> beanClass) {
		this.annotationType = annotationType;
		this.method = method;
		this.beanClass = beanClass;
	}

	/** A private, static or final method would run unlocked, as no proxy reaches it. */
	void interceptable() {
		int modifiers = this.method.getModifiers();
		String kind = Modifier.isStatic(modifiers) ? "static"
				: Modifier.isPrivate(modifiers) ? "private" : Modifier.isFinal(modifiers) ? "final" : null;
		if (kind != null) {
			throw fail("the method is " + kind + ", so no proxy can intercept it and it would run without the lock",
					"Make the method public and not static or final");
		}
	}

	/**
	 * Check that a returned {@code CompletionStage} can be replaced by a future that
	 * completes after the release.
	 * @return whether the locks are released by a returned {@code CompletionStage}
	 */
	boolean returnType() {
		Class<?> type = this.method.getReturnType();
		if (!CompletionStage.class.isAssignableFrom(type)) {
			return false;
		}
		if (type != CompletionStage.class && type != CompletableFuture.class) {
			throw fail(
					"the method returns " + type.getName() + ", a CompletionStage type it cannot return in"
							+ " place of a future that completes after the release",
					"Declare the return type as CompletableFuture or CompletionStage");
		}
		return true;
	}

	/**
	 * Check that the locks can be held until the work of a method that does not return a
	 * {@code CompletionStage} is done: at once when it returns a plain value, from
	 * subscription to termination when it returns a publisher or suspends.
	 * @return how the method returns a publisher, or {@code null} for a plain value
	 */
	@Nullable ReactiveReturn reactiveReturn() {
		Class<?> type = this.method.getReturnType();
		if (KotlinDetector.isSuspendingFunction(this.method)) {
			if (!COROUTINES_REACTOR_PRESENT) {
				throw fail(
						"the method is a Kotlin suspending function, which Spring proxies only with"
								+ " kotlinx-coroutines-reactor on the classpath",
						"Add org.jetbrains.kotlinx:kotlinx-coroutines-reactor");
			}
			return new ReactiveReturn(null,
					new MethodParameter(this.method, -1).getParameterType().getName().equals(KOTLIN_FLOW));
		}
		ReactiveAdapter adapter = REACTOR_PRESENT ? ReactiveAdapterRegistry.getSharedInstance().getAdapter(type) : null;
		// A Publisher adapter would also match a Publisher subtype, which it cannot
		// create; a type that is not deferred is at work before it is subscribed to.
		if (adapter != null && adapter.getDescriptor().isDeferred()
				&& type.isAssignableFrom(adapter.getReactiveType())) {
			return new ReactiveReturn(adapter, adapter.isMultiValue());
		}
		if (Future.class.isAssignableFrom(type)) {
			throw fail(
					"the method returns " + type.getName() + ", a Future that is not a CompletionStage, so"
							+ " nothing tells when its work is done and the lock would be released before",
					"Return a CompletableFuture or CompletionStage, which keeps the lock until it completes");
		}
		if (isDeferred(type)) {
			throw fail("the method returns " + type.getName() + ", whose work goes on after the method returned, and"
					+ (REACTOR_PRESENT ? " no deferred ReactiveAdapter of Spring's ReactiveAdapterRegistry creates it"
							: " reactive return types need Reactor")
					+ ", so the lock would be released before the work is done",
					REACTOR_PRESENT
							? "Return a Mono or a Flux (or a type with a registered ReactiveAdapter, such as RxJava's"
									+ " with io.reactivex.rxjava3:rxjava on the classpath), or lock inside the"
									+ " pipeline with ReactiveLockOperations"
							: "Add io.projectreactor:reactor-core, with which Mono, Flux and the types Spring adapts"
									+ " to them hold the lock from subscription to termination");
		}
		return null;
	}

	private static boolean isDeferred(@Nullable Class<?> type) {
		if (type == null) {
			return false;
		}
		if (DEFERRED_TYPES.contains(type.getName()) || isDeferred(type.getSuperclass())) {
			return true;
		}
		return Arrays.stream(type.getInterfaces()).anyMatch(LockMethodChecks::isDeferred);
	}

	/**
	 * Check a key template that is the same on every call where it would break
	 * {@link LockRules#key}: blank, or beginning with <code>'}'</code>, which no
	 * expression after it can change. Keys built from expressions are checked when they
	 * are built.
	 */
	void key(String template) {
		Violation violation = LockRules.key(template);
		if (violation != null) {
			throw new LockConfigurationException(this.annotationType, this.beanClass, this.method, template,
					"the key " + violation.problem(), violation.action());
		}
	}

	/**
	 * Check a wait or lease time against its rule.
	 * @param attribute the attribute, {@code waitTime} or {@code leaseTime}
	 * @param value the attribute as written, placeholders unresolved
	 * @param violation what {@link LockRules} says of the parsed duration
	 */
	void duration(String attribute, String value, @Nullable Violation violation) {
		if (violation != null) {
			throw violated(attribute + " = \"" + value + "\"", violation);
		}
	}

	LockConfigurationException notADuration(String attribute, String value, RuntimeException ex) {
		return fail(attribute + " = \"" + value + "\" is not a duration: " + ex.getMessage(),
				"Write a duration such as \"500ms\", \"5s\" or \"PT2S\", a number of milliseconds, or a ${...}"
						+ " placeholder that resolves to one (with a default, such as ${locks.wait:5s})");
	}

	/**
	 * Reject a fair read or write lock here, where the message can name the method,
	 * rather than on the first call, where {@link io.github.redislock.LockRequest} would,
	 * with the same problem.
	 */
	void mode(LockDeclaration declaration) {
		if (declaration.mode() == LockMode.PERMIT && !declaration.isConcurrencyLimit()) {
			throw fail("mode = PERMIT takes one of a limited number of permits, but @DistributedLock has no limit",
					"Use @DistributedConcurrencyLimit(limit = ..., key = ...) in place of @DistributedLock to run"
							+ " up to a number of calls at once");
		}
		Violation violation = LockRules.fairMode(declaration.fair(), declaration.mode());
		if (violation != null) {
			throw violated("fair = true", violation);
		}
	}

	/**
	 * Check the limit of a concurrency limit.
	 * @param attribute the attribute as written, such as {@code limit = 0}
	 * @param limit the limit given, or resolved from {@code limitString}
	 */
	void limit(String attribute, int limit) {
		Violation violation = LockRules.limit(limit);
		if (violation != null) {
			throw violated(attribute, violation);
		}
	}

	LockConfigurationException noLimit() {
		return fail("it gives no limit",
				"Give the number of calls that may run at once, as limit = 3 (or value), or as limitString ="
						+ " \"${some.property}\"");
	}

	LockConfigurationException notALimit(String value, String problem) {
		return fail("limitString = \"" + value + "\" " + problem,
				"Write a whole number of 1 or more, or a ${...} placeholder that resolves to one (with a default, such"
						+ " as ${partner.max-calls:3})");
	}

	/** {@link OnFailure#SKIP} returns {@code null}, which no primitive can hold. */
	void skippedResult(LockDeclaration declaration) {
		Class<?> returnType = this.method.getReturnType();
		if (declaration.onFailure() == OnFailure.SKIP && returnType.isPrimitive() && returnType != void.class) {
			throw fail(
					"onFailure = SKIP returns null when the lock is not acquired, but the method returns "
							+ returnType.getName(),
					"Return " + ClassUtils.resolvePrimitiveIfNecessary(returnType).getSimpleName()
							+ " or an Optional, or use onFailure = THROW or FALLBACK");
		}
	}

	/** {@link OnFailure#SKIP} returns an empty publisher, which some types cannot be. */
	void skippedResult(LockDeclaration declaration, @Nullable ReactiveReturn reactive) {
		ReactiveAdapter adapter = (reactive != null) ? reactive.adapter() : null;
		if (declaration.onFailure() == OnFailure.SKIP && adapter != null && !adapter.supportsEmpty()) {
			throw fail(
					"onFailure = SKIP returns an empty publisher when the lock is not acquired, but the method"
							+ " returns " + this.method.getReturnType().getName() + ", which cannot be empty",
					"Return a type that can be empty, such as a Mono, or use onFailure = THROW or FALLBACK");
		}
	}

	/**
	 * Check the fallback the annotation names against the one found.
	 * @param fallback the method of the annotation's fallback name and the annotated
	 * method's parameters, or {@code null} when there is none or none was looked for
	 */
	void fallback(LockDeclaration declaration, @Nullable Method fallback) {
		String name = declaration.fallback();
		if (declaration.onFailure() != OnFailure.FALLBACK) {
			if (StringUtils.hasText(name)) {
				throw fail("fallback = \"" + name + "\" is set, but onFailure is " + declaration.onFailure(),
						"Set onFailure = OnFailure.FALLBACK to call it, or remove the fallback");
			}
			return;
		}
		if (!StringUtils.hasText(name)) {
			throw fail("onFailure = FALLBACK needs the name of a fallback method", "Name it in fallback = \"...\"");
		}
		String signature = name + Arrays.stream(this.method.getParameterTypes())
			.map(Class::getSimpleName)
			.collect(Collectors.joining(", ", "(", ")"));
		String declare = "Declare " + this.method.getReturnType().getSimpleName() + " " + signature + " in "
				+ this.beanClass.getSimpleName()
				+ ": it is called with the same arguments when the lock is not acquired";
		if (fallback == null) {
			throw fail("there is no fallback method " + signature + " with the same parameters as the annotated"
					+ " method", declare);
		}
		if (!ClassUtils.isAssignable(this.method.getReturnType(), fallback.getReturnType())) {
			throw fail("fallback method " + signature + " returns " + fallback.getReturnType().getSimpleName()
					+ ", which is not assignable to the annotated method's "
					+ this.method.getReturnType().getSimpleName(), declare);
		}
	}

	/** The exception of a broken rule, with the rule's problem and action. */
	private LockConfigurationException violated(String attribute, Violation violation) {
		return fail(attribute + " " + violation.problem(), violation.action());
	}

	private LockConfigurationException fail(String problem, String action) {
		return new LockConfigurationException(this.annotationType, this.beanClass, this.method, null, problem, action);
	}

}
