package io.github.redislock.annotation;

import java.lang.reflect.Method;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.expression.EvaluationContext;
import org.springframework.util.ReflectionUtils;

import io.github.redislock.LockKeyException;
import io.github.redislock.annotation.LockKeyEvaluator.LockKey;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link LockKeyEvaluator}: parsing, start-up checks and evaluation of key
 * templates against method arguments.
 */
class LockKeyEvaluatorTests {

	private final LockKeyEvaluator evaluator = new LockKeyEvaluator();

	@Test
	void shortReferenceReadsParameterByName() {
		assertThat(evaluate("product:#id", "product", 42L)).isEqualTo("product:42");
	}

	@Test
	void shortReferencesReadRecordComponentsAndBeanProperties() {
		Order order = new Order(7, new Customer("Alice"));
		assertThat(evaluate("order:#order.id:line:#p1", "order", order, 3)).isEqualTo("order:7:line:3");
		assertThat(evaluate("customer:#order.customer.name", "order", order, 3)).isEqualTo("customer:Alice");
	}

	@Test
	void positionalReferencesReadParametersByIndex() {
		assertThat(evaluate("#p0/#a1", "order", new Order(1, null), 5)).isEqualTo("Order[id=1, customer=null]/5");
		assertThat(evaluate("#{new int[] {1, 2}}", "nothing")).isEqualTo("{1, 2}");
	}

	@Test
	void rootObjectDescribesTheCall() {
		assertThat(evaluate("#root.methodName:#root.targetClass.simpleName:#{#root.args.length}", "product", 1L))
			.isEqualTo("product:Sample:1");
	}

	@Test
	void bracedExpressionIsAnySpel() {
		assertThat(evaluate("user:#{#user.name.toLowerCase()}", "user", new User("Alice"))).isEqualTo("user:alice");
		assertThat(evaluate("#{#id * 2}", "product", 21L)).isEqualTo("42");
	}

	@Test
	void beanReferencesResolveAgainstTheBeanFactory() {
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		beanFactory.registerSingleton("tenantResolver", new TenantResolver());
		this.evaluator.setBeanFactory(beanFactory);
		assertThat(evaluate("tenant:#{@tenantResolver.current()}:#id", "product", 5L)).isEqualTo("tenant:acme:5");
	}

	@Test
	void literalKeyIsReturnedWithoutContext() {
		Method method = method("nothing");
		LockKey key = this.evaluator.parse("daily-report", method, Sample.class);
		assertThat(key.isLiteral()).isTrue();
		assertThat(this.evaluator.evaluate(key, null, method)).isEqualTo("daily-report");
	}

	@Test
	void nullPartFailsNamingMethodAndExpression() {
		assertThatExceptionOfType(LockKeyException.class)
			.isThrownBy(() -> evaluate("user:#user.name", "user", new User(null)))
			.withMessageContaining("Lock key 'user:#user.name' of Sample.user(..)")
			.withMessageContaining("expression '#user.name' evaluated to null")
			.satisfies((ex) -> {
				assertThat(ex.getKey()).isEqualTo("user:#user.name");
				assertThat(ex.getExpression()).isEqualTo("#user.name");
				assertThat(ex.getMethod()).isEqualTo(method("user"));
			});
	}

	@Test
	void blankPartFails() {
		assertThatExceptionOfType(LockKeyException.class)
			.isThrownBy(() -> evaluate("user:#{#user.name}", "user", new User("  ")))
			.withMessageContaining("expression '#{#user.name}' evaluated to a blank string");
	}

	@Test
	void failingPartFailsWithCause() {
		assertThatExceptionOfType(LockKeyException.class)
			.isThrownBy(() -> evaluate("user:#{#user.name.length()}", "user", (Object) null))
			.withMessageContaining("expression '#{#user.name.length()}' failed")
			.havingCause();
	}

	@Test
	void unknownParameterNameFailsAtParse() {
		assertThatExceptionOfType(LockConfigurationException.class)
			.isThrownBy(() -> this.evaluator.parse("order:#ordr.id", method("order"), Sample.class))
			.withMessageContaining(Sample.class.getName() + ".order(Order, int), key 'order:#ordr.id'")
			.withMessageContaining(
					"'#ordr' in '#ordr.id' names no parameter of the method; its parameters are" + " [order, line]");
	}

	@Test
	void unknownParameterNameInsideBracesFailsAtParse() {
		assertThatExceptionOfType(LockConfigurationException.class)
			.isThrownBy(() -> this.evaluator.parse("#{#usr.name}", method("user"), Sample.class))
			.withMessageContaining("'#usr' in '#{#usr.name}' names no parameter");
	}

	@Test
	void positionBeyondParametersFailsAtParse() {
		assertThatExceptionOfType(LockConfigurationException.class)
			.isThrownBy(() -> this.evaluator.parse("#p2", method("order"), Sample.class))
			.withMessageContaining("'#p2' in '#p2' refers to a parameter that does not exist: the method has 2");
	}

	@Test
	void spelSyntaxErrorFailsAtParse() {
		assertThatExceptionOfType(LockConfigurationException.class)
			.isThrownBy(() -> this.evaluator.parse("x:#{#id +}", method("product"), Sample.class))
			.withMessageContaining("key 'x:#{#id +}'")
			.withMessageContaining("'#{#id +}' is not a valid SpEL expression");
	}

	@Test
	void templateSyntaxErrorFailsAtParse() {
		assertThatExceptionOfType(LockConfigurationException.class)
			.isThrownBy(() -> this.evaluator.parse("x:#{#id", method("product"), Sample.class))
			.withMessageContaining("has no matching '}'")
			.satisfies((ex) -> assertThat(ex.getAction()).contains("'##' for a literal '#'"));
	}

	private String evaluate(String template, String methodName, Object... args) {
		Method method = method(methodName);
		LockKey key = this.evaluator.parse(template, method, Sample.class);
		EvaluationContext context = this.evaluator.createEvaluationContext(method, args, new Sample(), Sample.class);
		return this.evaluator.evaluate(key, context, method);
	}

	private static Method method(String name) {
		return List.of(ReflectionUtils.getDeclaredMethods(Sample.class))
			.stream()
			.filter((method) -> method.getName().equals(name))
			.findFirst()
			.orElseThrow();
	}

	static class Sample {

		public void product(long id) {
		}

		public void order(Order order, int line) {
		}

		public void user(User user) {
		}

		public void nothing() {
		}

	}

	record Order(long id, Customer customer) {

	}

	record User(String name) {

	}

	static class Customer {

		private final String name;

		Customer(String name) {
			this.name = name;
		}

		public String getName() {
			return this.name;
		}

	}

	static class TenantResolver {

		public String current() {
			return "acme";
		}

	}

}
