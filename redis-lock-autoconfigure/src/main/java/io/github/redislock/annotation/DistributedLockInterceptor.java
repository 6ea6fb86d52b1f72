package io.github.redislock.annotation;

import java.lang.reflect.InvocationTargetException;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.expression.EvaluationContext;
import org.springframework.util.Assert;

import io.github.redislock.CurrentLock;
import io.github.redislock.DistributedLock.OnFailure;
import io.github.redislock.LockGroup;
import io.github.redislock.LockHandle;
import io.github.redislock.LockOperations;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTimeoutException;
import io.github.redislock.annotation.LockKeyEvaluator.LockKey;

/**
 * Runs a {@link io.github.redislock.DistributedLock @DistributedLock} method under its
 * locks, and a {@link io.github.redislock.DistributedConcurrencyLimit
 *
 * @DistributedConcurrencyLimit} method under a permit of its key (a
 * {@link io.github.redislock.LockMode#PERMIT} lock, as its spec requests it): the cached
 * {@link LockMethodSpec}, the keys evaluated and sorted, locked by
 * {@link LockOperations#lock} (one key, the common case) or
 * {@link LockOperations#lockAll} (several), made {@link CurrentLock current} while the
 * method body runs, and closed when the method returns, throws, or its returned stage
 * completes. A method that returns a publisher (or suspends) is left to
 * {@link ReactiveLockInterception}, which locks it from subscription to termination
 * without blocking a thread.
 * @author redis-lock
 */
final class DistributedLockInterceptor implements MethodInterceptor {

	private final LockMethodSpec.Cache specs;

	private final Supplier<LockKeyEvaluator> evaluator;

	private final Supplier<LockOperations> locks;

	private final @Nullable ReactiveLockInterception reactive;

	/**
	 * Create an interceptor.
	 * @param reactive runs the methods that return a publisher, or {@code null} when
	 * Reactor is absent, and no such method passed the start-up checks
	 */
	DistributedLockInterceptor(LockMethodSpec.Cache specs, Supplier<LockKeyEvaluator> evaluator,
			Supplier<LockOperations> locks, @Nullable ReactiveLockInterception reactive) {
		this.specs = specs;
		this.evaluator = evaluator;
		this.locks = locks;
		this.reactive = reactive;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		Assert.state(target != null, "@DistributedLock and @DistributedConcurrencyLimit need a target object");
		Class<?> targetClass = AopProxyUtils.ultimateTargetClass(target);
		LockMethodSpec spec = this.specs.get(invocation.getMethod(), targetClass);
		if (spec == null) {
			return invocation.proceed();
		}
		List<LockRequest> requests = requests(spec, keys(spec, invocation.getArguments(), target, targetClass));
		if (spec.reactive() != null) {
			Assert.state(this.reactive != null, "Reactive @DistributedLock methods need Reactor");
			return this.reactive.invoke(spec, requests, invocation, target);
		}
		AutoCloseable locks = acquire(spec, requests);
		if (locks == null) {
			return onFailure(spec, invocation, target);
		}
		Object result;
		// The scope ends with the method body: a returned stage keeps the locks, but
		// the threads that complete it never saw this scope.
		try (CurrentLock.Scope scope = (locks instanceof LockHandle handle) ? CurrentLock.open(handle)
				: CurrentLock.open((LockGroup) locks)) {
			result = invocation.proceed();
		}
		catch (Throwable ex) {
			throw release(locks, ex);
		}
		if (spec.completionStage() && result != null) {
			return releaseOnCompletion((CompletionStage<?>) result, locks);
		}
		Throwable failure = release(locks, null);
		if (failure != null) {
			throw failure;
		}
		return result;
	}

	private SortedSet<String> keys(LockMethodSpec spec, @Nullable Object[] args, Object target, Class<?> targetClass) {
		LockKeyEvaluator evaluator = this.evaluator.get();
		EvaluationContext context = spec.isLiteral() ? null
				: evaluator.createEvaluationContext(spec.method(), args, target, targetClass);
		SortedSet<String> keys = new TreeSet<>();
		for (LockKey key : spec.keys()) {
			keys.add(evaluator.evaluate(key, context, spec.method()));
		}
		return keys;
	}

	private static List<LockRequest> requests(LockMethodSpec spec, SortedSet<String> keys) {
		List<LockRequest> requests = new ArrayList<>(keys.size());
		for (String key : keys) {
			requests.add(spec.request(key, spec.waitTime()));
		}
		return requests;
	}

	/**
	 * Lock the one key, or every key in sorted order within one wait budget.
	 * @return the {@link LockHandle} or {@link LockGroup}, or {@code null} when a lock
	 * stayed held elsewhere and the method does not throw for it
	 */
	private @Nullable AutoCloseable acquire(LockMethodSpec spec, List<LockRequest> requests) {
		LockOperations locks = this.locks.get();
		try {
			return (requests.size() == 1) ? locks.lock(requests.get(0)) : locks.lockAll(requests);
		}
		catch (LockTimeoutException ex) {
			if (spec.onFailure() == OnFailure.THROW) {
				throw ex;
			}
			return null;
		}
	}

	private @Nullable Object onFailure(LockMethodSpec spec, MethodInvocation invocation, Object target)
			throws Throwable {
		if (spec.fallback() == null) {
			return spec.skippedResult();
		}
		try {
			return spec.fallback().invoke(target, invocation.getArguments());
		}
		catch (InvocationTargetException ex) {
			throw ex.getTargetException();
		}
	}

	/**
	 * Return a future that completes like the method's stage, once its locks are
	 * released, so that a caller who sees it complete can take the locks at once.
	 */
	private CompletableFuture<@Nullable Object> releaseOnCompletion(CompletionStage<?> stage, AutoCloseable locks) {
		CompletableFuture<@Nullable Object> completion = new CompletableFuture<>();
		stage.whenComplete((value, failure) -> {
			Throwable outcome = release(locks, failure);
			if (outcome != null) {
				completion.completeExceptionally(outcome);
			}
			else {
				completion.complete(value);
			}
		});
		return completion;
	}

	/**
	 * Close the locks, all of them even if some fail.
	 * @param primary the method's failure, which a release failure is added to as
	 * suppressed so that it reaches the caller as thrown
	 * @return the primary failure, else the release failure, or {@code null}
	 */
	private static @Nullable Throwable release(AutoCloseable locks, @Nullable Throwable primary) {
		try {
			locks.close();
		}
		catch (Throwable ex) {
			if (primary == null) {
				return ex;
			}
			primary.addSuppressed(ex);
		}
		return primary;
	}

}
