package io.github.redislock.annotation;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.javapoet.ClassName;
import org.springframework.util.ReflectionUtils;

import io.github.redislock.DistributedConcurrencyLimit;
import io.github.redislock.DistributedLock.OnFailure;
import io.github.redislock.LockMode;
import io.github.redislock.LockRequest;
import io.github.redislock.LockRules;
import io.github.redislock.LockRules.Violation;
import io.github.redislock.annotation.LockKeyBeanRegistrationAotProcessorTests.Customer;
import io.github.redislock.annotation.LockKeyBeanRegistrationAotProcessorTests.Order;
import io.github.redislock.annotation.LockMethodSpecTests.RecordingLockOperations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests of the {@link LockRequest LockRequests} built from a
 * {@link DistributedConcurrencyLimit @DistributedConcurrencyLimit} declaration, without
 * Redis: a permit of the key with the limit, the other attributes as
 * {@code @DistributedLock} reads them, {@code limitString} resolved once, the limit's
 * rule shared with the API, and the AOT hints of its key and fallback.
 */
class DistributedConcurrencyLimitSpecTests {

	private final LockMethodSpec.Cache specs = new LockMethodSpec.Cache(LockKeyEvaluator::new);

	@Test
	void permitOfTheKeyWithTheLimitAndTheOtherAttributes() {
		RecordingLockOperations locks = new RecordingLockOperations();
		proxy(locks).quote(7);
		assertThat(locks.requests).singleElement().satisfies((request) -> {
			assertThat(request.key()).isEqualTo("partner:7");
			assertThat(request.mode()).isEqualTo(LockMode.PERMIT);
			assertThat(request.limit()).isEqualTo(3);
			assertThat(request.waitTime()).isEqualTo(Duration.ofSeconds(2));
			assertThat(request.leaseTime()).isEqualTo(Duration.ofSeconds(5));
			assertThat(request.isReentrant()).isTrue();
			assertThat(request.isFair()).isFalse();
			assertThat(request.name()).isEqualTo("Partners.quote");
		});
	}

	@Test
	void valueIsTheLimitAndTheDefaultKeyNamesTheMethod() {
		RecordingLockOperations locks = new RecordingLockOperations();
		proxy(locks).byValue();
		assertThat(locks.requests).singleElement().satisfies((request) -> {
			assertThat(request.key()).isEqualTo("Partners.byValue");
			assertThat(request.mode()).isEqualTo(LockMode.PERMIT);
			assertThat(request.limit()).isEqualTo(4);
		});
	}

	@Test
	void limitStringIsResolvedOnceWhenTheSpecIsBuilt() {
		List<String> resolved = new CopyOnWriteArrayList<>();
		LockMethodSpec.Cache specs = new LockMethodSpec.Cache(LockKeyEvaluator::new);
		specs.setValueResolver((value) -> {
			resolved.add(value);
			return value.replace("${partner.max-calls}", "6");
		});
		specs.validate(Partners.class);
		assertThat(resolved).containsOnlyOnce("${partner.max-calls}");
		resolved.clear();
		for (int i = 0; i < 10; i++) {
			LockMethodSpec spec = specs.get(method(Partners.class, "byProperty"), Partners.class);
			assertThat(spec.request("partner", null).limit()).isEqualTo(6);
		}
		assertThat(resolved).isEmpty();
	}

	@Test
	void limitBelowOneGivesTheSameProblemAsTheApi() {
		Violation violation = LockRules.limit(0);
		Method method = method(ZeroLimit.class, "call");
		assertThatExceptionOfType(LockConfigurationException.class)
			.isThrownBy(() -> this.specs.get(method, ZeroLimit.class))
			.satisfies((ex) -> {
				assertThat(ex.getAnnotationType()).isEqualTo(DistributedConcurrencyLimit.class);
				assertThat(ex.getMethod()).isEqualTo(method);
				assertThat(ex.getProblem()).isEqualTo("limit = 0 " + violation.problem());
				assertThat(ex.getAction()).isEqualTo(violation.action());
			});
		assertThatIllegalArgumentException().isThrownBy(() -> LockRequest.permit("partner", 0))
			.withMessage(violation.message("Permit limit of 'partner'"));
	}

	@Test
	void aheadOfTimeTheKeyChainAndTheFallbackAreInvocable() {
		GenericApplicationContext context = new GenericApplicationContext();
		context.registerBeanDefinition("bean", new RootBeanDefinition(Exports.class));
		DefaultGenerationContext generationContext = new DefaultGenerationContext(
				new ClassNameGenerator(ClassName.get("com.example", "AotTest")), new InMemoryGeneratedFiles());
		new ApplicationContextAotGenerator().processAheadOfTime(context, generationContext);
		RuntimeHints hints = generationContext.getRuntimeHints();
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Order.class, "getCustomer")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Customer.class, "id")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Exports.class, "exportLater")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Exports.class, "export"))
			.as("@Reflective on @DistributedConcurrencyLimit")
			.accepts(hints);
	}

	private Partners proxy(RecordingLockOperations locks) {
		ProxyFactory factory = new ProxyFactory(new Partners());
		factory.setProxyTargetClass(true);
		factory.addAdvice(new DistributedLockInterceptor(this.specs, LockKeyEvaluator::new, () -> locks, null));
		return (Partners) factory.getProxy();
	}

	private static Method method(Class<?> type, String name) {
		Method method = ReflectionUtils.findMethod(type, name, (Class<?>[]) null);
		assertThat(method).isNotNull();
		return method;
	}

	static class Partners {

		@DistributedConcurrencyLimit(limit = 3, key = "partner:#id", waitTime = "2s", leaseTime = "5s")
		public void quote(long id) {
		}

		@DistributedConcurrencyLimit(4)
		public void byValue() {
		}

		@DistributedConcurrencyLimit(limitString = "${partner.max-calls}", key = "partner")
		public void byProperty() {
		}

	}

	static class ZeroLimit {

		@DistributedConcurrencyLimit(limit = 0)
		public void call() {
		}

	}

	public static class Exports {

		@DistributedConcurrencyLimit(limit = 2, key = "export:#order.customer.id", onFailure = OnFailure.FALLBACK,
				fallback = "exportLater")
		public void export(Order order) {
		}

		public void exportLater(Order order) {
		}

	}

}
