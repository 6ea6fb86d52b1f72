package io.github.redislock.annotation;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.core.ReactiveAdapter;
import org.springframework.util.function.SingletonSupplier;

import io.github.redislock.DistributedLock.OnFailure;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTimeoutException;
import io.github.redislock.ReactiveLockOperations;

/**
 * Runs a {@link io.github.redislock.DistributedLock @DistributedLock} (or
 * {@link io.github.redislock.DistributedConcurrencyLimit @DistributedConcurrencyLimit})
 * method that returns a publisher (or suspends) under its locks (or permit), through
 * {@link ReactiveLockOperations}: the result requests the locks when subscribed to,
 * invokes the method and subscribes to its publisher once they are granted, and releases
 * them when that publisher completes, fails or is cancelled. No thread waits for a lock
 * meanwhile, and nothing of the method runs unlocked, not even the code that assembles
 * its publisher. Kept apart from {@link DistributedLockInterceptor} so that Reactor is
 * loaded only when a method needs it.
 *
 * @author redis-lock
 */
final class ReactiveLockInterception {

	private final Supplier<ReactiveLockOperations> locks;

	ReactiveLockInterception(Supplier<ReactiveLockOperations> locks) {
		this.locks = locks;
	}

	/**
	 * Create an interception that looks the {@link ReactiveLockOperations} bean up on its
	 * first call, so that the post-processor does not create it early.
	 */
	static ReactiveLockInterception lookingUp(Supplier<@Nullable BeanFactory> beanFactory) {
		return new ReactiveLockInterception(SingletonSupplier.of(() -> {
			BeanFactory factory = beanFactory.get();
			if (factory == null) {
				throw new IllegalStateException("DistributedLockBeanPostProcessor needs a BeanFactory");
			}
			return factory.getBean(ReactiveLockOperations.class);
		}));
	}

	/**
	 * Return the method's result, locked from subscription to termination.
	 * @param requests the locks, in the order to take them
	 */
	Object invoke(LockMethodSpec spec, List<LockRequest> requests, MethodInvocation invocation, Object target) {
		ReactiveReturn reactive = spec.reactive();
		if (reactive == null) {
			throw new IllegalStateException(spec.method() + " does not return a publisher");
		}
		Publisher<?> result = reactive.multiValue() ? many(spec, requests, invocation, target)
				: one(spec, requests, invocation, target);
		ReactiveAdapter adapter = reactive.adapter();
		return (adapter != null) ? adapter.fromPublisher(result) : result;
	}

	private Mono<Object> one(LockMethodSpec spec, List<LockRequest> requests, MethodInvocation invocation,
			Object target) {
		return Mono.defer(() -> {
			AtomicBoolean invoked = new AtomicBoolean();
			Mono<Object> body = Mono.defer(() -> {
				invoked.set(true);
				return Mono.from(proceed(spec, invocation));
			});
			ReactiveLockOperations locks = this.locks.get();
			return ((requests.size() == 1) ? locks.execute(requests.get(0), body) : locks.execute(requests, body))
				.onErrorResume((ex) -> notAcquired(spec, ex, invoked), (ex) -> (spec.fallback() != null)
						? Mono.from(fallback(spec, invocation, target)) : Mono.empty());
		});
	}

	private Flux<Object> many(LockMethodSpec spec, List<LockRequest> requests, MethodInvocation invocation,
			Object target) {
		return Flux.defer(() -> {
			AtomicBoolean invoked = new AtomicBoolean();
			Flux<Object> body = Flux.defer(() -> {
				invoked.set(true);
				return Flux.from(proceed(spec, invocation));
			});
			ReactiveLockOperations locks = this.locks.get();
			return ((requests.size() == 1) ? locks.executeMany(requests.get(0), body)
					: locks.executeMany(requests, body))
				.onErrorResume((ex) -> notAcquired(spec, ex, invoked), (ex) -> (spec.fallback() != null)
						? Flux.from(fallback(spec, invocation, target)) : Flux.empty());
		});
	}

	/**
	 * Whether a failure is a lock that stayed held elsewhere, which SKIP and FALLBACK
	 * answer: not a timeout of the method's own work, which is the method's failure.
	 */
	private static boolean notAcquired(LockMethodSpec spec, Throwable ex, AtomicBoolean invoked) {
		return ex instanceof LockTimeoutException && !invoked.get() && spec.onFailure() != OnFailure.THROW;
	}

	/**
	 * Invoke the rest of the interceptor chain and the method, once per subscription: a
	 * clone of the invocation for each, as a publisher may be subscribed to again.
	 */
	private static Publisher<?> proceed(LockMethodSpec spec, MethodInvocation invocation) {
		try {
			return publisher(spec, (invocation instanceof ProxyMethodInvocation proxied)
					? proxied.invocableClone().proceed() : invocation.proceed());
		}
		catch (Throwable ex) {
			return Mono.error(ex);
		}
	}

	/** Invoke the fallback, a suspending function as Spring's proxy would invoke it. */
	private static Publisher<?> fallback(LockMethodSpec spec, MethodInvocation invocation, Object target) {
		try {
			return publisher(spec,
					AopUtils.invokeJoinpointUsingReflection(target, spec.fallback(), invocation.getArguments()));
		}
		catch (Throwable ex) {
			return Mono.error(ex);
		}
	}

	private static Publisher<?> publisher(LockMethodSpec spec, @Nullable Object result) {
		if (result == null) {
			return Mono.error(new IllegalStateException(spec.method().getDeclaringClass().getSimpleName() + "."
					+ spec.method().getName() + " returned null: a method that returns a publisher must return one,"
					+ " such as Mono.empty()"));
		}
		ReactiveAdapter adapter = spec.reactive().adapter();
		return (adapter != null) ? adapter.toPublisher(result) : (Publisher<?>) result;
	}

}
