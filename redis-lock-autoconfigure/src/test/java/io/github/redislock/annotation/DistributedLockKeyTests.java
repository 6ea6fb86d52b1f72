package io.github.redislock.annotation;

import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;

import io.github.redislock.LockHandle;
import io.github.redislock.LockKeyException;
import io.github.redislock.annotation.FailureServicesConfiguration.FailureService;
import io.github.redislock.annotation.KeyFormServicesConfiguration.Customer;
import io.github.redislock.annotation.KeyFormServicesConfiguration.KeyFormService;
import io.github.redislock.annotation.KeyFormServicesConfiguration.Order;
import io.github.redislock.annotation.KeyFormServicesConfiguration.Shipping;
import io.github.redislock.annotation.KeyFormServicesConfiguration.User;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Tests of the key templates of {@link io.github.redislock.DistributedLock
 *
 * @DistributedLock}, through annotated beans: each records the locks held in Redis while
 * it runs.
 */
@LockedServicesTest
class DistributedLockKeyTests {

	@Autowired
	private KeyFormService keys;

	@Autowired
	private FailureService failures;

	@Autowired
	private Shipping shipping;

	@Autowired
	private LockProbe probe;

	@BeforeEach
	void flush() {
		this.probe.flush();
		this.probe.lastSeen = null;
		this.failures.resetRuns();
	}

	@Test
	void shortReferenceToParameter() {
		this.keys.product(42);
		assertThat(this.probe.lastSeen).containsExactly("product:42");
		assertThat(this.probe.held()).isEmpty();
	}

	@Test
	void shortReferencesToRecordComponentAndPosition() {
		this.keys.orderLine(new Order(7, null), 3);
		assertThat(this.probe.lastSeen).containsExactly("order:7:line:3");
	}

	@Test
	void shortReferenceToNestedBeanProperty() {
		this.keys.customer(new Order(7, new Customer("Alice")));
		assertThat(this.probe.lastSeen).containsExactly("customer:Alice");
	}

	@Test
	void argumentByIndex() {
		this.keys.item("sku-1");
		assertThat(this.probe.lastSeen).containsExactly("item:sku-1");
	}

	@Test
	void rootObject() {
		this.keys.rootMethodName();
		assertThat(this.probe.lastSeen).containsExactly("call:rootMethodName");
	}

	@Test
	void bracedExpression() {
		this.keys.user(new User("Alice"));
		assertThat(this.probe.lastSeen).containsExactly("user:alice");
	}

	@Test
	void beanReference() {
		this.keys.tenant();
		assertThat(this.probe.lastSeen).containsExactly("tenant:acme");
	}

	@Test
	void emptyKeyIsClassAndMethodName() {
		this.keys.defaultKey();
		assertThat(this.probe.lastSeen).containsExactly("KeyFormService.defaultKey");
	}

	@Test
	void doubledHashIsLiteral() {
		this.keys.escaped(5);
		assertThat(this.probe.lastSeen).containsExactly("tag#5");
	}

	@Test
	void composedAnnotation() {
		this.keys.composed(11);
		assertThat(this.probe.lastSeen).containsExactly("order:11");
	}

	@Test
	void annotationOnInterfaceMethod() {
		this.shipping.ship(9);
		assertThat(this.probe.lastSeen).containsExactly("ship:9");
	}

	@Test
	void severalKeysAreAllHeld() {
		this.keys.several(1);
		assertThat(this.probe.lastSeen).containsExactlyInAnyOrder("a:1", "b:1", "c:1");
		assertThat(this.probe.held()).isEmpty();
	}

	@Test
	void severalKeysAreAcquiredInSortedOrder() {
		// Declared b, a, c: "a" is taken first, so it is held while "b" is awaited.
		LockHandle b = this.probe.holdElsewhere("b:2");
		CompletableFuture<Void> call = CompletableFuture.runAsync(() -> this.keys.several(2));
		await().untilAsserted(() -> assertThat(this.probe.held()).containsExactlyInAnyOrder("a:2", "b:2"));
		assertThat(call).isNotDone();
		b.close();
		call.join();
		assertThat(this.probe.lastSeen).containsExactlyInAnyOrder("a:2", "b:2", "c:2");
		assertThat(this.probe.held()).isEmpty();
	}

	@Test
	void nullKeyPartFailsWithoutLocking() {
		assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> this.failures.userName(new User(null)))
			.withMessageContaining("Lock key 'user:#user.name' of FailureService.userName(..)")
			.withMessageContaining("expression '#user.name' evaluated to null");
		assertThat(this.failures.runs()).isZero();
		assertThat(this.probe.held()).isEmpty();
	}

	@Test
	void blankKeyPartFailsWithoutLocking() {
		assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> this.failures.userName(new User(" ")))
			.withMessageContaining("evaluated to a blank string");
		assertThat(this.failures.runs()).isZero();
	}

}
