package io.github.redislock.samples.flashsale;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The demo's hook that holds a purchase between its read and its write.
 */
class PurchaseHoldTests {

	private final PurchaseHold hold = new PurchaseHold();

	@Test
	void armedHoldStopsTheNextPurchaseOfTheProductUntilReleased() {
		this.hold.arm("1");
		CompletableFuture<Void> purchase = CompletableFuture.runAsync(() -> this.hold.reached("1"));
		await().atMost(Duration.ofSeconds(10)).until(() -> this.hold.isHolding("1"));
		assertThat(purchase).isNotDone();
		this.hold.release("1");
		await().atMost(Duration.ofSeconds(10)).until(purchase::isDone);
		assertThat(this.hold.isHolding("1")).isFalse();
	}

	@Test
	void holdCatchesOnePurchaseOnly() {
		this.hold.arm("1");
		CompletableFuture<Void> first = CompletableFuture.runAsync(() -> this.hold.reached("1"));
		await().atMost(Duration.ofSeconds(10)).until(() -> this.hold.isHolding("1"));
		// A second purchase passes: the hold was used up by the first
		this.hold.reached("1");
		this.hold.release("1");
		await().atMost(Duration.ofSeconds(10)).until(first::isDone);
	}

	@Test
	void purchasesOfOtherProductsAndUnarmedHoldsPassAtOnce() {
		this.hold.reached("1");
		this.hold.arm("1");
		this.hold.reached("2");
		this.hold.release("1");
		this.hold.reached("1");
		assertThat(this.hold.isHolding("1")).isFalse();
	}

}
