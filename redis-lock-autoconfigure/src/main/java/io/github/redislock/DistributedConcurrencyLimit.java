package io.github.redislock;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.aot.hint.annotation.Reflective;
import org.springframework.core.annotation.AliasFor;

/**
 * Runs the annotated method of a Spring bean with one of a limited number of permits of a
 * name: at most {@link #limit()} invocations at once across every JVM of the application,
 * where Spring's {@code @ConcurrencyLimit} limits them within one JVM:
 *
 * <pre class="code">
 * &#64;DistributedConcurrencyLimit(limit = 3, key = "partner-api", waitTime = "10s")
 * public Quote quote(Order order) { ... }
 *
 * &#64;DistributedConcurrencyLimit(limitString = "${exports.parallel}", key = "export:#tenant")
 * public void export(String tenant) { ... }
 * </pre>
 *
 * Each invocation takes a permit before the method runs and gives it back when the method
 * returns or throws (or, for asynchronous and reactive methods, when its work ends),
 * exactly as {@link DistributedLock @DistributedLock} holds its lock: the same key
 * templates, wait and lease times, failure handling, return types
 * ({@code CompletionStage}, publishers, Kotlin {@code suspend} functions, {@code @Async})
 * and observability. A permit is a lease: renewed by the watchdog while the method runs
 * (or fixed by {@link #leaseTime()}), back to the others within its lease when its JVM
 * dies, and reported lost ({@link LockLostException}) when Redis lost it. Each grant
 * carries a fencing token greater than every earlier grant of the key, on
 * {@link CurrentLock}.
 *
 * <h2>The limit</h2> The limit travels with each invocation: a JVM lets an invocation in
 * while fewer than its own limit hold a permit of the key. JVMs that disagree (a
 * {@link #limitString()} changed in one instance first) admit no more than the largest of
 * their limits at once; lowered, the invocations above it finish and no new one starts
 * until fewer than the new limit run. The limit is resolved once, when the bean is
 * created.
 *
 * <h2>Waiting</h2> An invocation that finds the limit reached waits up to
 * {@link #waitTime()} for a permit, asleep until a release wakes it: Spring's
 * {@code ThrottlePolicy.BLOCK}. {@code waitTime = "0"} makes a single attempt, as its
 * {@code REJECT} policy. When the wait runs out, {@link #onFailure()} applies: by default
 * a {@link LockTimeoutException} naming the key. A thread that holds a permit of a key
 * and calls another method limited on the same key re-enters its permit.
 *
 * @author redis-lock
 * @see LockRequest#permit(String, int)
 * @see LockOperations#permit(String, int)
 */
@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective
public @interface DistributedConcurrencyLimit {

	/**
	 * Alias for {@link #limit()}, for {@code @DistributedConcurrencyLimit(3)}.
	 * @return the limit
	 */
	@AliasFor("limit")
	int value() default Integer.MIN_VALUE;

	/**
	 * How many invocations may run at once across every JVM, at least 1. Either this (or
	 * {@link #value()}) or {@link #limitString()} must be given; a method with neither,
	 * or with a limit below 1, stops the application at start-up.
	 * @return the limit
	 */
	@AliasFor("value")
	int limit() default Integer.MIN_VALUE;

	/**
	 * The limit as a string, with {@code "${...}"} placeholders resolved when the bean is
	 * created: {@code "${partner.max-parallel-calls}"}. Overrides {@link #limit()} when
	 * not empty.
	 * <p>
	 * The default is empty.
	 * @return the limit as a string
	 */
	String limitString() default "";

	/**
	 * Key template of the permits, as a {@link DistributedLock#key() lock key}: literal
	 * text with {@code #name}, {@code #p0} references and {@code #{...}} expressions, so
	 * that {@code "export:#tenant"} limits each tenant on its own.
	 * <p>
	 * The default is the simple name of the bean's class and the method name, such as
	 * {@code "PartnerClient.quote"}.
	 * @return the key template
	 */
	String key() default "";

	/**
	 * How long to wait for a permit, as a duration string like
	 * {@link DistributedLock#waitTime()}; {@code "0"} makes a single attempt.
	 * <p>
	 * The default is empty: the configured wait time ({@code redis-lock.wait-time}).
	 * @return the wait time
	 */
	String waitTime() default "";

	/**
	 * Fixed lease of the permit, as {@link DistributedLock#leaseTime()}: it expires after
	 * it even if the method still runs.
	 * <p>
	 * The default is empty: the configured lease ({@code redis-lock.lease-time}), which
	 * when unset means the watchdog renews the permit for as long as the method runs.
	 * @return the lease time
	 */
	String leaseTime() default "";

	/**
	 * What to do when no permit came free within the wait time, as for
	 * {@link DistributedLock#onFailure()}.
	 * <p>
	 * The default is {@link DistributedLock.OnFailure#THROW}: a
	 * {@link LockTimeoutException}.
	 * @return the failure strategy
	 */
	DistributedLock.OnFailure onFailure() default DistributedLock.OnFailure.THROW;

	/**
	 * Name of the method to call instead when no permit came free, with
	 * {@code onFailure = FALLBACK}, as {@link DistributedLock#fallback()}.
	 * <p>
	 * The default is empty: no fallback.
	 * @return the fallback method name
	 */
	String fallback() default "";

}
