package io.github.redislock.annotation;

import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.aot.hint.annotation.Reflective;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.annotation.AliasFor;
import org.springframework.scheduling.annotation.Async;

import io.github.redislock.DistributedLock;
import io.github.redislock.DistributedLock.OnFailure;
import io.github.redislock.LockMode;
import io.github.redislock.autoconfigure.ReactiveLockAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that invalid {@link DistributedLock @DistributedLock} declarations stop the
 * application when their bean is created, naming the class, method, key and fix.
 */
@RedisTest
class DistributedLockStartupFailureTests {

	private final ApplicationContextRunner runner;

	private final ApplicationContextRunner reactiveRunner;

	DistributedLockStartupFailureTests(RedisServer redis) {
		this.runner = runner(redis, DataRedisAutoConfiguration.class, RedisLockAutoConfiguration.class);
		this.reactiveRunner = runner(redis, DataRedisAutoConfiguration.class, RedisLockAutoConfiguration.class,
				ReactiveLockAutoConfiguration.class);
	}

	private static ApplicationContextRunner runner(RedisServer redis, Class<?>... autoConfigurations) {
		return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(autoConfigurations))
			.withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
					"locks.wait=3s");
	}

	@Test
	void validDeclarationsStart() {
		this.runner.withBean(Valid.class)
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(Valid.class));
	}

	@Test
	void spelSyntaxError() {
		this.runner.withBean(SyntaxError.class)
			.run((context) -> assertFailure(context).hasMessageContaining(SyntaxError.class.getName() + ".ship(long)")
				.hasMessageContaining("key 'order:#{#id +}'")
				.hasMessageContaining("is not a valid SpEL expression"));
	}

	@Test
	void templateSyntaxError() {
		this.runner.withBean(TemplateError.class)
			.run((context) -> assertFailure(context).hasMessageContaining("key 'issue#42'")
				.hasMessageContaining("write '##' for a literal '#'"));
	}

	@Test
	void unknownParameterName() {
		this.runner.withBean(UnknownParameter.class)
			.run((context) -> assertFailure(context).hasMessageContaining(".ship(long), key 'order:#orderid'")
				.hasMessageContaining("'#orderid' in '#orderid' names no parameter of the method; its parameters are"
						+ " [orderId]"));
	}

	@Test
	void parameterNamesMissingWithoutParametersFlag(@TempDir Path classes) throws Exception {
		Class<?> type = compileWithoutParametersFlag(classes, "NoNames",
				"@DistributedLock(\"order:#orderId\") public void ship(long orderId) { }");
		this.runner.withClassLoader(type.getClassLoader())
			.withBean(type.getName(), type)
			.run((context) -> assertFailure(context).hasMessageContaining("dynamic.NoNames.ship(long)")
				.hasMessageContaining("key 'order:#orderId'")
				.hasMessageContaining("compiled without -parameters")
				.hasMessageContaining("Compile with the -parameters flag")
				.hasMessageContaining("as #p0 for the first"));
	}

	@Test
	void positionalReferencesWorkWithoutParametersFlag(@TempDir Path classes) throws Exception {
		Class<?> type = compileWithoutParametersFlag(classes, "Positional",
				"@DistributedLock(\"order:#p0\") public void ship(long orderId) { }");
		this.runner.withClassLoader(type.getClassLoader())
			.withBean(type.getName(), type)
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void primitiveReturnWithSkip() {
		this.runner.withBean(PrimitiveSkip.class)
			.run((context) -> assertFailure(context).hasMessageContaining(".count()")
				.hasMessageContaining(
						"onFailure = SKIP returns null when the lock is not acquired, but the method" + " returns long")
				.hasMessageContaining("Return Long or an Optional"));
	}

	@Test
	void reactiveAndAsyncDeclarationsStart() {
		this.reactiveRunner.withBean(ReturnsMono.class)
			.withBean(ReturnsFlux.class)
			.withBean(ReturnsPublisher.class)
			.withBean(AsyncMethod.class)
			.withBean(AsyncComposedMethod.class)
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void reactiveMethodWithoutReactiveLockOperationsBean() {
		this.runner.withBean(ReturnsMono.class)
			.run((context) -> assertFailure(context).hasMessageContaining(ReturnsMono.class.getName())
				.hasMessageContaining("there is no ReactiveLockOperations bean to lock them with")
				.hasMessageContaining("define a ReactiveLockOperations bean"));
	}

	@Test
	void publisherTypeWithoutAdapter() {
		this.runner.withBean(ReturnsOwnPublisher.class)
			.run((context) -> assertFailure(context).hasMessageContaining(".load()")
				.hasMessageContaining("returns " + OwnPublisher.class.getName()
						+ ", whose work goes on after the method returned, and no deferred ReactiveAdapter")
				.hasMessageContaining("Return a Mono or a Flux"));
	}

	@Test
	void plainFutureReturn() {
		this.runner.withBean(ReturnsFuture.class)
			.run((context) -> assertFailure(context)
				.hasMessageContaining("returns java.util.concurrent.Future, a Future that is not a CompletionStage")
				.hasMessageContaining("Return a CompletableFuture or CompletionStage"));
	}

	@Test
	void asyncMethodReturningPlainFuture() {
		this.runner.withBean(AsyncFutureMethod.class)
			.run((context) -> assertFailure(context).hasMessageContaining(".send()")
				.hasMessageContaining("returns java.util.concurrent.Future, a Future that is not a CompletionStage"));
	}

	@Test
	void completableFutureSubclassReturn() {
		this.runner.withBean(ReturnsFutureSubclass.class)
			.run((context) -> assertFailure(context)
				.hasMessageContaining("Declare the return type as CompletableFuture or CompletionStage"));
	}

	@Test
	void missingFallback() {
		this.runner.withBean(MissingFallback.class)
			.run((context) -> assertFailure(context)
				.hasMessageContaining("there is no fallback method missing(long) with the same parameters")
				.hasMessageContaining("Declare String missing(long) in MissingFallback"));
	}

	@Test
	void fallbackWithOtherParameters() {
		this.runner.withBean(FallbackWithOtherParameters.class)
			.run((context) -> assertFailure(context)
				.hasMessageContaining("there is no fallback method other(long) with the same parameters"));
	}

	@Test
	void fallbackWithIncompatibleReturnType() {
		this.runner.withBean(FallbackWithOtherReturnType.class)
			.run((context) -> assertFailure(context).hasMessageContaining(
					"fallback method other(long) returns Integer, which is not assignable to the annotated method's"
							+ " String"));
	}

	@Test
	void fallbackWithoutFallbackStrategy() {
		this.runner.withBean(FallbackWithoutStrategy.class)
			.run((context) -> assertFailure(context)
				.hasMessageContaining("fallback = \"other\" is set, but onFailure is THROW"));
	}

	@Test
	void invalidWaitTime() {
		this.runner.withBean(InvalidWaitTime.class)
			.run((context) -> assertFailure(context)
				.hasMessageContaining("waitTime = \"5 parsecs\" is not a duration"));
	}

	@Test
	void negativeWaitTime() {
		this.runner.withBean(NegativeWaitTime.class)
			.run((context) -> assertFailure(context).hasMessageContaining(
					"waitTime = \"-1s\" must be zero or positive but was PT-1S. Use zero for a single" + " attempt"));
	}

	@Test
	void zeroLeaseTime() {
		this.runner.withBean(ZeroLeaseTime.class)
			.run((context) -> assertFailure(context).hasMessageContaining(
					"leaseTime = \"0\" must be at least 1 ms (Redis counts it in milliseconds) but was" + " PT0S"));
	}

	@Test
	void subMillisecondLeaseTime() {
		// Would reach Redis as a lease of zero: LockRequest rejects it on the first call.
		this.runner.withBean(SubMillisecondLeaseTime.class)
			.run((context) -> assertFailure(context).hasMessageContaining("leaseTime = \"500us\" must be at least 1 ms")
				.hasMessageContaining("leave the lease unset for watchdog renewal"));
	}

	@Test
	void blankKey() {
		this.runner.withBean(BlankKey.class)
			.run((context) -> assertFailure(context).hasMessageContaining(BlankKey.class.getName() + ".run(), key ' '")
				.hasMessageContaining("the key must not be blank. Give the name of the resource to lock"));
	}

	@Test
	void keyBeginningWithClosingBrace() {
		// Whatever #id is, the key begins with '}': LockRequest rejects it on every call.
		this.runner.withBean(ClosingBraceKey.class)
			.run((context) -> assertFailure(context).hasMessageContaining(".ship(long), key '}order:#id'")
				.hasMessageContaining("the key must not begin with '}'")
				.hasMessageContaining("Put some text before the '}'"));
	}

	@Test
	void unresolvablePlaceholder() {
		this.runner.withBean(UnresolvablePlaceholder.class)
			.run((context) -> assertFailure(context).hasMessageContaining("waitTime = \"${locks.missing}\"")
				.hasMessageContaining("resolve"));
	}

	@Test
	void privateMethod() {
		this.runner.withBean(PrivateMethod.class)
			.run((context) -> assertFailure(context).hasMessageContaining(".hidden()")
				.hasMessageContaining("the method is private, so no proxy can intercept it"));
	}

	@Test
	void fairReadLock() {
		this.runner.withBean(FairRead.class)
			.run((context) -> assertFailure(context).hasMessageContaining(FairRead.class.getName() + ".load(long)")
				.hasMessageContaining("fair = true applies to exclusive locks only, but the mode is READ")
				.hasMessageContaining("Ask for an exclusive lock to be fair, or for a READ lock that is not fair"));
	}

	@Test
	void fairWriteLock() {
		this.runner.withBean(FairWrite.class)
			.run((context) -> assertFailure(context).hasMessageContaining(FairWrite.class.getName() + ".save(long)")
				.hasMessageContaining("but the mode is WRITE"));
	}

	@Test
	void noLockOperationsBean() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RedisLockAutoConfiguration.class))
			.withBean(Simple.class)
			.run((context) -> assertFailure(context).hasMessageContaining(Simple.class.getName())
				.hasMessageContaining("there is no LockOperations bean to lock with")
				.hasMessageContaining("spring-boot-starter-data-redis"));
	}

	private static AbstractThrowableAssert<?, ? extends Throwable> assertFailure(AssertableApplicationContext context) {
		assertThat(context).hasFailed();
		return assertThat(context.getStartupFailure()).rootCause()
			.isInstanceOf(LockConfigurationException.class)
			.hasMessageStartingWith("Invalid @DistributedLock on ");
	}

	/**
	 * Compile a class with one method, as javac does without {@code -parameters}, and
	 * load it.
	 */
	private static Class<?> compileWithoutParametersFlag(Path classes, String name, String method) throws Exception {
		Path source = classes.resolve("dynamic/" + name + ".java");
		Files.createDirectories(source.getParent());
		Files.writeString(source, "package dynamic;\nimport io.github.redislock.DistributedLock;\npublic class " + name
				+ " {\n" + method + "\n}\n");
		String classpath = String.join(System.getProperty("path.separator"), location(DistributedLock.class),
				location(AliasFor.class), location(Reflective.class));
		JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
		int status = compiler.run(null, null, null, "-proc:none", "-classpath", classpath, "-d", classes.toString(),
				source.toString());
		assertThat(status).isZero();
		URLClassLoader loader = new URLClassLoader(new URL[] { classes.toUri().toURL() },
				DistributedLockStartupFailureTests.class.getClassLoader());
		return loader.loadClass("dynamic." + name);
	}

	private static String location(Class<?> type) throws Exception {
		return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
	}

	static class Valid {

		@DistributedLock(key = { "order:#orderId", "#{#root.methodName}", "p:#p0" }, waitTime = "${locks.wait}",
				leaseTime = "PT30S")
		public void ship(long orderId) {
		}

		@DistributedLock(onFailure = OnFailure.SKIP)
		public void skip() {
		}

		@DistributedLock(onFailure = OnFailure.FALLBACK, fallback = "recover")
		public CompletableFuture<String> load(String id) {
			return CompletableFuture.completedFuture(id);
		}

		CompletableFuture<String> recover(String id) {
			return CompletableFuture.completedFuture("none");
		}

		@DistributedLock(key = "doc:#id", mode = LockMode.READ)
		public void read(long id) {
		}

		@DistributedLock(key = "doc:#id", mode = LockMode.WRITE)
		public void write(long id) {
		}

		@DistributedLock(key = "queue:#id", fair = true)
		public void fair(long id) {
		}

	}

	static class Simple {

		@DistributedLock
		public void run() {
		}

	}

	static class SyntaxError {

		@DistributedLock("order:#{#id +}")
		public void ship(long id) {
		}

	}

	static class TemplateError {

		@DistributedLock("issue#42")
		public void ship(long id) {
		}

	}

	static class UnknownParameter {

		@DistributedLock("order:#orderid")
		public void ship(long orderId) {
		}

	}

	static class PrimitiveSkip {

		@DistributedLock(onFailure = OnFailure.SKIP)
		public long count() {
			return 0;
		}

	}

	static class ReturnsMono {

		@DistributedLock
		public Mono<String> load() {
			return Mono.just("x");
		}

	}

	static class ReturnsFlux {

		@DistributedLock
		public Flux<String> load() {
			return Flux.just("x");
		}

	}

	static class ReturnsPublisher {

		@DistributedLock(onFailure = OnFailure.SKIP)
		public Publisher<String> load() {
			return Flux.just("x");
		}

	}

	/** A publisher type of its own, which no adapter of the registry can create. */
	static class OwnPublisher implements Publisher<String> {

		@Override
		public void subscribe(Subscriber<? super String> subscriber) {
			Flux.just("x").subscribe(subscriber);
		}

	}

	static class ReturnsOwnPublisher {

		@DistributedLock
		public OwnPublisher load() {
			return new OwnPublisher();
		}

	}

	static class AsyncFutureMethod {

		@Async
		@DistributedLock
		public Future<String> send() {
			return CompletableFuture.completedFuture("x");
		}

	}

	static class ReturnsFuture {

		@DistributedLock
		public Future<String> load() {
			return CompletableFuture.completedFuture("x");
		}

	}

	static class ReturnsFutureSubclass {

		@DistributedLock
		public SpecialFuture load() {
			return new SpecialFuture();
		}

	}

	static class SpecialFuture extends CompletableFuture<String> {

	}

	static class AsyncMethod {

		@Async
		@DistributedLock
		public void send() {
		}

	}

	@Retention(RetentionPolicy.RUNTIME)
	@Async
	@interface Background {

	}

	static class AsyncComposedMethod {

		@Background
		@DistributedLock
		public CompletableFuture<Void> send() {
			return CompletableFuture.completedFuture(null);
		}

	}

	static class MissingFallback {

		@DistributedLock(onFailure = OnFailure.FALLBACK, fallback = "missing")
		public String load(long id) {
			return "x";
		}

	}

	static class FallbackWithOtherParameters {

		@DistributedLock(onFailure = OnFailure.FALLBACK, fallback = "other")
		public String load(long id) {
			return "x";
		}

		String other(String id) {
			return "y";
		}

	}

	static class FallbackWithOtherReturnType {

		@DistributedLock(onFailure = OnFailure.FALLBACK, fallback = "other")
		public String load(long id) {
			return "x";
		}

		Integer other(long id) {
			return 1;
		}

	}

	static class FallbackWithoutStrategy {

		@DistributedLock(fallback = "other")
		public String load(long id) {
			return "x";
		}

		String other(long id) {
			return "y";
		}

	}

	static class InvalidWaitTime {

		@DistributedLock(waitTime = "5 parsecs")
		public void run() {
		}

	}

	static class NegativeWaitTime {

		@DistributedLock(waitTime = "-1s")
		public void run() {
		}

	}

	static class ZeroLeaseTime {

		@DistributedLock(leaseTime = "0")
		public void run() {
		}

	}

	static class SubMillisecondLeaseTime {

		@DistributedLock(leaseTime = "500us")
		public void run() {
		}

	}

	static class BlankKey {

		@DistributedLock(" ")
		public void run() {
		}

	}

	static class ClosingBraceKey {

		@DistributedLock("}order:#id")
		public void ship(long id) {
		}

	}

	static class UnresolvablePlaceholder {

		@DistributedLock(waitTime = "${locks.missing}")
		public void run() {
		}

	}

	static class FairRead {

		@DistributedLock(key = "doc:#id", mode = LockMode.READ, fair = true)
		public String load(long id) {
			return "x";
		}

	}

	static class FairWrite {

		@DistributedLock(key = "doc:#id", mode = LockMode.WRITE, fair = true)
		public void save(long id) {
		}

	}

	static class PrivateMethod {

		@DistributedLock
		private void hidden() {
		}

		public void open() {
			hidden();
		}

	}

}
