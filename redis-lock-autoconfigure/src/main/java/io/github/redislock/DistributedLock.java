package io.github.redislock;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.aot.hint.annotation.Reflective;
import org.springframework.core.annotation.AliasFor;

/**
 * Runs the annotated method of a Spring bean under a distributed lock, acquired before
 * the method runs and released when it returns or throws (or, for asynchronous and
 * reactive methods, when its work ends: see "Return types" below):
 *
 * <pre class="code">
 * &#64;DistributedLock(key = "order:#order.id", waitTime = "2s")
 * public void ship(Order order) { ... }
 * </pre>
 *
 * <h2>Key templates</h2> Each {@link #key() key} is literal text with expressions in it:
 * <ul>
 * <li>{@code #name}, {@code #name.property.property}, {@code #p0} / {@code #a0},
 * {@code #root.methodName}: a short reference, which ends at the first character that
 * cannot continue a Java identifier chain, so {@code "order:#order.id:line:#p1"} reads
 * two references. Record components are read like properties ({@code #order.id} calls
 * {@code id()} on a record).</li>
 * <li>{@code #{...}}: any SpEL expression, such as
 * {@code "user:#{#user.name.toLowerCase()}"} or
 * {@code "tenant:#{@tenantResolver.current()}"} for a bean.</li>
 * <li>{@code ##} is a literal {@code #}; every other character is literal. A {@code #}
 * that starts neither form is an error, and so is a short reference followed by {@code (}
 * or {@code [}: write method calls and indexing inside {@code #{...}}.</li>
 * </ul>
 * The root object offers {@code method}, {@code methodName}, {@code args}, {@code target}
 * and {@code targetClass}. Parameter names ({@code #order}) need classes compiled with
 * {@code -parameters} (Spring Boot's build plugins do it); {@code #p0} always works.
 *
 * <p>
 * Templates are parsed and checked when the bean is created: a syntax error, an unknown
 * parameter name, a key breaking {@link LockRules#key} (blank, or beginning with
 * <code>'}'</code>), an attribute breaking another of the {@link LockRules}, or an
 * unsupported method stops the application with a
 * {@code io.github.redislock.annotation.LockConfigurationException} naming the class,
 * method, key and fix. At call time, an expression that evaluates to {@code null} or a
 * blank string throws a {@link LockKeyException}: nothing is locked and the method does
 * not run.
 *
 * <h2>Several keys</h2> With several keys all of them are locked, in sorted order so that
 * two methods naming the same keys in another order cannot deadlock, and released in
 * reverse order. The wait time is the budget for all of them.
 *
 * <h2>The lock inside the method</h2> While the method body runs, {@link CurrentLock}
 * returns its lock and fencing token on the thread that runs it
 * ({@link CurrentLock#fencingToken()}, or {@link CurrentLock#fencingToken(String)} by key
 * when the method locks several).
 *
 * <h2>Proxies and ordering</h2> The lock is applied by a proxy, so only calls from
 * another bean are locked: a call from inside the same bean (self-invocation) runs
 * without the lock. The lock advice is always outside {@code @Transactional}: the lock is
 * taken before the transaction begins and released after it committed or rolled back. The
 * annotation works on interface methods, on classes proxied with JDK proxies or CGLIB,
 * and as a meta-annotation of composed annotations.
 *
 * <h2>Return types</h2> A method returning {@link java.util.concurrent.CompletionStage}
 * or {@link java.util.concurrent.CompletableFuture} keeps its locks until the returned
 * stage completes; the caller gets a future that completes after the release.
 * <p>
 * A method returning a Reactor {@code Mono} or {@code Flux}, or any deferred type that
 * Spring's {@code ReactiveAdapterRegistry} adapts to them (a Reactive Streams
 * {@code Publisher}, a {@code java.util.concurrent.Flow.Publisher}, a Kotlin
 * {@code Flow}, RxJava types with RxJava on the classpath), and a Kotlin {@code suspend}
 * function, holds its locks from subscription to termination, through
 * {@link ReactiveLockOperations}: the locks are requested when the result is subscribed
 * to, without a thread waiting for them; the method itself is invoked, and its publisher
 * subscribed to, once they are granted; they are released when the publisher completes,
 * fails or is cancelled, and a {@code Mono}'s value is emitted after the release. The
 * lock is {@linkplain ReactiveCurrentLock read from the Reactor Context}, not from
 * {@link CurrentLock}, and a nested annotated method of the same key in the same reactive
 * chain re-enters it. This needs Reactor (and, for {@code suspend} functions,
 * {@code kotlinx-coroutines-reactor}) on the classpath.
 * <p>
 * On an {@code @Async} method the locks are taken on the executor thread that runs it,
 * for its whole run, and until its returned {@code CompletableFuture} completes; never on
 * the caller's thread.
 * <p>
 * Rejected at start-up, since their work would outlive the lock: a plain
 * {@link java.util.concurrent.Future}, a {@code CompletableFuture} subclass, and a
 * publisher type that no deferred adapter of the registry creates (a {@code Publisher}
 * class of one's own, RxJava types without RxJava's adapter).
 *
 * <h2>Observability</h2> Metrics and traces report the method's locks under the name
 * {@code BeanClass.method}, whatever their keys, so that ids in keys never become metric
 * tags.
 *
 * @author redis-lock
 * @see LockOperations
 */
@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective
public @interface DistributedLock {

	/**
	 * Alias for {@link #key()}.
	 * @return the key templates
	 */
	@AliasFor("key")
	String[] value() default {};

	/**
	 * Key templates of the locks to hold while the method runs, each literal text with
	 * {@code #name}, {@code #p0}, {@code #root.methodName} references and {@code #{...}}
	 * expressions (see the {@linkplain DistributedLock type documentation}). Several
	 * entries lock several keys, acquired in sorted order.
	 * <p>
	 * The default is a single key made of the simple name of the bean's class and the
	 * method name, such as {@code "OrderService.ship"}.
	 * @return the key templates
	 */
	@AliasFor("value")
	String[] key() default {};

	/**
	 * How long to wait for the locks, as a duration string: {@code "5s"},
	 * {@code "500ms"}, {@code "PT2S"}, or a plain number of milliseconds;
	 * {@code "${...}"} placeholders are resolved. {@code "0"} makes a single attempt.
	 * With several keys it is the budget for all of them.
	 * <p>
	 * The default is empty: the {@link LockOptions#waitTime() configured wait time}
	 * ({@code redis-lock.wait-time}).
	 * @return the wait time
	 */
	String waitTime() default "";

	/**
	 * Fixed lease of the locks, as a duration string like {@link #waitTime()}: the locks
	 * expire after it even if the method still runs, and are not renewed.
	 * <p>
	 * The default is empty: the {@link LockOptions#leaseTime() configured lease}
	 * ({@code redis-lock.lease-time}), which when unset means the watchdog renews the
	 * locks for as long as the method runs.
	 * @return the lease time
	 */
	String leaseTime() default "";

	/**
	 * Kind of lock: {@link LockMode#EXCLUSIVE}, or the {@link LockMode#READ read} or
	 * {@link LockMode#WRITE write} side of a read/write lock, so that many read methods
	 * run together and a write method alone. {@link LockMode#PERMIT} is rejected at
	 * start-up: a method that runs up to a number of calls at once is annotated with
	 * {@link DistributedConcurrencyLimit @DistributedConcurrencyLimit}, which gives the
	 * limit.
	 * <p>
	 * The default is {@link LockMode#EXCLUSIVE}.
	 * @return the lock mode
	 */
	LockMode mode() default LockMode.EXCLUSIVE;

	/**
	 * Whether callers get the lock in the order they asked for it, across every JVM (see
	 * {@link LockRequest#fair(boolean)}). Only for {@link LockMode#EXCLUSIVE} locks: a
	 * fair read or write lock is rejected at start-up.
	 * <p>
	 * The default is {@code false}: whoever is woken first wins.
	 * @return whether the lock is fair
	 */
	boolean fair() default false;

	/**
	 * What to do when the locks are not acquired within the wait time. Only a lock held
	 * elsewhere for the whole wait triggers it: a Redis failure always throws
	 * {@link LockAccessException}.
	 * <p>
	 * The default is {@link OnFailure#THROW}.
	 * @return the failure strategy
	 */
	OnFailure onFailure() default OnFailure.THROW;

	/**
	 * Name of the method to call instead when the locks are not acquired, with
	 * {@code onFailure = FALLBACK}: a method of the same bean class with the same
	 * parameter types and a compatible return type. It is called on the target object
	 * with the same arguments, without the proxy's other advice.
	 * <p>
	 * The default is empty: no fallback.
	 * @return the fallback method name
	 */
	String fallback() default "";

	/**
	 * What a {@link DistributedLock @DistributedLock} method does when its locks stay
	 * held elsewhere for the whole wait time.
	 */
	enum OnFailure {

		/**
		 * Throw {@link LockTimeoutException}, or, for a method that returns a publisher,
		 * end it with that error.
		 */
		THROW,

		/**
		 * Do not run the method and return {@code null},
		 * {@link java.util.Optional#empty()} for an {@code Optional} return type, or a
		 * completed future of either for a {@code CompletionStage}, an empty publisher
		 * for a method that returns one. Rejected at start-up on methods returning a
		 * primitive or a publisher type that cannot be empty.
		 */
		SKIP,

		/**
		 * Call the {@link DistributedLock#fallback() fallback} method instead and return
		 * its result; for a method that returns a publisher, the fallback is called when
		 * the wait runs out and its publisher is subscribed to in place of the method's.
		 */
		FALLBACK

	}

}
