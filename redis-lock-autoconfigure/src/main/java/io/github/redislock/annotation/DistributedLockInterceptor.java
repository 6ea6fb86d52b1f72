package io.github.redislock.annotation;

import java.lang.reflect.InvocationTargetException;
import java.time.Duration;
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

import io.github.redislock.DistributedLock.OnFailure;
import io.github.redislock.LockHandle;
import io.github.redislock.LockOperations;
import io.github.redislock.LockTemplate;
import io.github.redislock.LockTimeoutException;
import io.github.redislock.annotation.LockKeyEvaluator.LockKey;

/**
 * Runs a {@link io.github.redislock.DistributedLock @DistributedLock} method under its
 * locks: the cached {@link LockMethodSpec}, the keys evaluated and sorted, one
 * {@link LockOperations#lock} per key, and the handles closed in reverse order when the
 * method returns, throws, or its returned stage completes.
 *
 * @author redis-lock
 */
final class DistributedLockInterceptor implements MethodInterceptor {

	private final LockMethodSpecs specs;

	private final Supplier<LockKeyEvaluator> evaluator;

	private final Supplier<LockOperations> locks;

	DistributedLockInterceptor(LockMethodSpecs specs, Supplier<LockKeyEvaluator> evaluator,
			Supplier<LockOperations> locks) {
		this.specs = specs;
		this.evaluator = evaluator;
		this.locks = locks;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		Assert.state(target != null, "@DistributedLock needs a target object");
		Class<?> targetClass = AopProxyUtils.ultimateTargetClass(target);
		LockMethodSpec spec = this.specs.get(invocation.getMethod(), targetClass);
		if (spec == null) {
			return invocation.proceed();
		}
		List<LockHandle> handles = acquire(spec, keys(spec, invocation.getArguments(), target, targetClass));
		if (handles == null) {
			return onFailure(spec, invocation, target);
		}
		Object result;
		try {
			result = invocation.proceed();
		}
		catch (Throwable ex) {
			throw release(handles, ex);
		}
		if (spec.completionStage() && result != null) {
			return releaseOnCompletion((CompletionStage<?>) result, handles);
		}
		Throwable failure = release(handles, null);
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

	/**
	 * Lock every key, in sorted order, within one wait budget.
	 * @return the handles, or {@code null} when a lock stayed held elsewhere and the
	 * method does not throw for it
	 */
	private @Nullable List<LockHandle> acquire(LockMethodSpec spec, SortedSet<String> keys) {
		LockOperations locks = this.locks.get();
		Duration budget = (spec.waitTime() != null) ? spec.waitTime()
				: (locks instanceof LockTemplate template) ? template.options().waitTime() : null;
		long deadline = System.nanoTime() + ((budget != null) ? budget.toNanos() : 0);
		List<LockHandle> handles = new ArrayList<>(keys.size());
		try {
			for (String key : keys) {
				Duration waitTime = (budget == null || handles.isEmpty()) ? budget
						: Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
				handles.add(locks.lock(spec.request(key, waitTime)));
			}
			return handles;
		}
		catch (LockTimeoutException ex) {
			release(handles, ex);
			if (spec.onFailure() == OnFailure.THROW) {
				throw ex;
			}
			return null;
		}
		catch (RuntimeException ex) {
			release(handles, ex);
			throw ex;
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
	private CompletableFuture<@Nullable Object> releaseOnCompletion(CompletionStage<?> stage,
			List<LockHandle> handles) {
		CompletableFuture<@Nullable Object> completion = new CompletableFuture<>();
		stage.whenComplete((value, failure) -> {
			Throwable outcome = release(handles, failure);
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
	 * Close the handles in reverse order of acquisition, all of them even if some fail.
	 * @param primary the method's failure, which release failures are added to as
	 * suppressed so that it reaches the caller as thrown
	 * @return the primary failure, else the first release failure, or {@code null}
	 */
	private static @Nullable Throwable release(List<LockHandle> handles, @Nullable Throwable primary) {
		Throwable outcome = primary;
		for (int i = handles.size() - 1; i >= 0; i--) {
			try {
				handles.get(i).close();
			}
			catch (Throwable ex) {
				if (outcome == null) {
					outcome = ex;
				}
				else {
					outcome.addSuppressed(ex);
				}
			}
		}
		return outcome;
	}

}
