package io.github.redislock.annotation;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.AliasFor;

import io.github.redislock.DistributedLock;

/**
 * Beans whose {@link DistributedLock @DistributedLock} keys take every form a key
 * template can: argument names, indexes and properties, SpEL and bean references, the
 * default key, escapes, several keys, a composed annotation and an annotated interface.
 */
@Configuration(proxyBeanMethods = false)
class KeyFormServicesConfiguration {

	@Bean
	TenantResolver tenantResolver() {
		return new TenantResolver();
	}

	@Bean
	KeyFormService keyFormService(LockProbe probe) {
		return new KeyFormService(probe);
	}

	@Bean
	Shipping shipping(LockProbe probe) {
		return new DefaultShipping(probe);
	}

	static class TenantResolver {

		public String current() {
			return "acme";
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

	/**
	 * A composed annotation: a lock on the order given as first argument.
	 */
	@Target(ElementType.METHOD)
	@Retention(RetentionPolicy.RUNTIME)
	@DistributedLock(key = "order:#p0", waitTime = "1s")
	@interface OrderLock {

		@AliasFor(annotation = DistributedLock.class, attribute = "waitTime")
		String waitTime() default "1s";

	}

	/** One method per key form, each recording the locks held while it runs. */
	static class KeyFormService {

		private final LockProbe probe;

		KeyFormService(LockProbe probe) {
			this.probe = probe;
		}

		@DistributedLock("product:#id")
		public void product(long id) {
			this.probe.record();
		}

		@DistributedLock(key = "order:#order.id:line:#p1")
		public void orderLine(Order order, int line) {
			this.probe.record();
		}

		@DistributedLock("customer:#order.customer.name")
		public void customer(Order order) {
			this.probe.record();
		}

		@DistributedLock("item:#a0")
		public void item(String sku) {
			this.probe.record();
		}

		@DistributedLock("call:#root.methodName")
		public void rootMethodName() {
			this.probe.record();
		}

		@DistributedLock("user:#{#user.name.toLowerCase()}")
		public void user(User user) {
			this.probe.record();
		}

		@DistributedLock("tenant:#{@tenantResolver.current()}")
		public void tenant() {
			this.probe.record();
		}

		@DistributedLock
		public void defaultKey() {
			this.probe.record();
		}

		@DistributedLock("tag###id")
		public void escaped(long id) {
			this.probe.record();
		}

		@DistributedLock({ "b:#id", "a:#id", "c:#id" })
		public void several(long id) {
			this.probe.record();
		}

		@OrderLock
		public void composed(long orderId) {
			this.probe.record();
		}

	}

	/** An interface whose method carries the annotation. */
	interface Shipping {

		@DistributedLock("ship:#orderId")
		void ship(long orderId);

	}

	static class DefaultShipping implements Shipping {

		private final LockProbe probe;

		DefaultShipping(LockProbe probe) {
			this.probe = probe;
		}

		@Override
		public void ship(long orderId) {
			this.probe.record();
		}

	}

}
