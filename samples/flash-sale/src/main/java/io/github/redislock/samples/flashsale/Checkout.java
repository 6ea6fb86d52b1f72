package io.github.redislock.samples.flashsale;

import org.springframework.stereotype.Service;

import io.github.redislock.DistributedLock;
import io.github.redislock.LockTimeoutException;

/**
 * Purchases under a distributed lock per product: whichever instance a purchase reaches,
 * it waits for the other purchases of the same product, in every JVM, to finish before it
 * reads the stock.
 *
 * @author redis-lock
 */
@Service
public class Checkout {

	private final Inventory inventory;

	/**
	 * Create the checkout.
	 * @param inventory the unprotected purchase logic
	 */
	public Checkout(Inventory inventory) {
		this.inventory = inventory;
	}

	/**
	 * Sell one item of the product if any is left, holding the lock {@code product:<id>}
	 * while the inventory reads, checks and writes the stock.
	 * @param id the product id
	 * @return whether an item was sold, and the stock left
	 * @throws LockTimeoutException when other purchases of the product held the lock for
	 * the whole five seconds of waiting
	 */
	@DistributedLock(key = "product:#id", waitTime = "5s")
	public Purchase purchase(String id) {
		return this.inventory.purchase(id);
	}

}
