package io.github.redislock.annotation;

import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;

import org.junit.jupiter.api.Test;

import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.ExecutableHint;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.TypeHint;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.javapoet.ClassName;

import io.github.redislock.DistributedLock;
import io.github.redislock.DistributedLock.OnFailure;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link LockKeyBeanRegistrationAotProcessor}: a context holding a bean with
 * {@code @DistributedLock} methods is processed ahead of time, as
 * {@code spring-boot:process-aot} does (which also finds the processor in
 * {@code META-INF/spring/aot.factories}), and its runtime hints are read.
 */
class LockKeyBeanRegistrationAotProcessorTests {

	@Test
	void chainThroughAClassAndARecordGetsHintsForExactlyTheMembersItCalls() {
		RuntimeHints hints = processAheadOfTime(Shipping.class);
		assertThat(invocable(Order.class, "getCustomer")).accepts(hints);
		assertThat(invocable(Customer.class, "id")).accepts(hints);
		assertThat(methodHints(hints, Order.class)).containsExactly("getCustomer");
		assertThat(methodHints(hints, Customer.class)).containsExactly("id");
	}

	@Test
	void bracedExpressionGetsHintsForItsPropertiesAndMethodCalls() throws NoSuchMethodException {
		RuntimeHints hints = processAheadOfTime(Mailing.class);
		assertThat(methodHints(hints, Order.class)).containsExactlyInAnyOrder("getCustomer", "isPriority");
		assertThat(methodHints(hints, Customer.class)).containsExactly("name");
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(String.class.getMethod("toLowerCase")))
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onMethodInvocation(String.class.getMethod("toLowerCase", Locale.class))).rejects(hints);
		assertThat(invocable(Class.class, "getSimpleName")).accepts(hints);
		assertThat(invocable(LockExpressionRoot.class, "targetClass")).accepts(hints);
	}

	@Test
	void chainsThatCannotBeResolvedBeforeTheCallAreSkipped() {
		// An Object parameter, an unknown parameter name and an index: no type to follow,
		// and no failure; the invalid key is for start-up to report, with its fix
		RuntimeHints hints = processAheadOfTime(Auditing.class);
		assertThat(invocable(Coded.class, "code")).rejects(hints);
		assertThat(invocable(Coded.class, "getCode")).rejects(hints);
		assertThat(methodHints(hints, Order.class)).isEmpty();
		assertThat(methodHints(hints, Customer.class)).isEmpty();
	}

	@Test
	void fallbackMethodIsInvocable() {
		RuntimeHints hints = processAheadOfTime(Shipping.class);
		assertThat(invocable(Shipping.class, "shipLater")).accepts(hints);
		assertThat(invocable(Shipping.class, "ship")).as("@Reflective on @DistributedLock").accepts(hints);
	}

	@Test
	void beanWithoutLockedMethodsGetsNoHints() {
		RuntimeHints hints = processAheadOfTime(Order.class);
		assertThat(methodHints(hints, Order.class)).isEmpty();
		assertThat(methodHints(hints, Customer.class)).isEmpty();
	}

	private static RuntimeHints processAheadOfTime(Class<?> beanClass) {
		GenericApplicationContext context = new GenericApplicationContext();
		context.registerBeanDefinition("bean", new RootBeanDefinition(beanClass));
		DefaultGenerationContext generationContext = new DefaultGenerationContext(
				new ClassNameGenerator(ClassName.get("com.example", "AotTest")), new InMemoryGeneratedFiles());
		new ApplicationContextAotGenerator().processAheadOfTime(context, generationContext);
		return generationContext.getRuntimeHints();
	}

	private static Predicate<RuntimeHints> invocable(Class<?> type, String method) {
		return RuntimeHintsPredicates.reflection().onMethodInvocation(type, method);
	}

	private static List<String> methodHints(RuntimeHints hints, Class<?> type) {
		TypeHint typeHint = hints.reflection().getTypeHint(type);
		return (typeHint != null) ? typeHint.methods().map(ExecutableHint::getName).toList() : List.of();
	}

	public static class Shipping {

		@DistributedLock(key = "order:#order.customer.id", onFailure = OnFailure.FALLBACK, fallback = "shipLater")
		public void ship(Order order) {
		}

		public void shipLater(Order order) {
		}

	}

	public static class Mailing {

		@DistributedLock(
				key = { "mail:#{#order.customer.name.toLowerCase()}", "#root.targetClass.simpleName:#{#p0.priority}" })
		public void send(Order order) {
		}

	}

	public static class Auditing {

		@DistributedLock(key = { "audit:#{#payload.code()}:#payload.code", "#nobody.customer", "#{#p0[0].customer}" })
		public void record(Object payload) {
		}

		@DistributedLock(key = "orders:#{#orders[0].customer.id}")
		public void recordAll(Order[] orders) {
		}

	}

	public static class Order {

		public Customer getCustomer() {
			return new Customer("c-1", "Alice");
		}

		public String getNote() {
			return "";
		}

		public boolean isPriority() {
			return false;
		}

	}

	public record Customer(String id, String name) {

	}

	public static class Coded {

		public String code() {
			return "c";
		}

		public String getCode() {
			return "c";
		}

	}

}
