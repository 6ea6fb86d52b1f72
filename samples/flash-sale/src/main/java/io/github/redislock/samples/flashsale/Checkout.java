package io.github.redislock.samples.flashsale;

import org.springframework.stereotype.Service;

import io.github.redislock.CurrentLock;
import io.github.redislock.DistributedLock;
import io.github.redislock.LockLostException;
import io.github.redislock.LockTimeoutException;
import io.github.redislock.StaleFencingTokenException;

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
	 * @throws LockLostException when the lock expired before the purchase ended (its
	 * lease is fixed by {@code redis-lock.lease-time} and ran out): the stock was written
	 * all the same, without protection
	 */
	@DistributedLock(key = "product:#id", waitTime = "5s")
	public Purchase purchase(String id) {
		return this.inventory.purchase(id);
	}

	/**
	 * Sell one item of the product if any is left, as {@link #purchase(String)} does, and
	 * write the stock with the lock's fencing token, so that a purchase whose lock
	 * expired before its write cannot overwrite the stock left by the next holder. The
	 * lock is the same; {@link CurrentLock} gives the method its fencing token.
	 * @param id the product id
	 * @return whether an item was sold, and the stock left
	 * @throws LockTimeoutException when other purchases of the product held the lock for
	 * the whole five seconds of waiting
	 * @throws StaleFencingTokenException when the lock expired and a later holder wrote
	 * the product before this purchase did: nothing was written
	 * @throws LockLostException when the lock expired before the purchase ended but no
	 * later holder had written yet, so the write went through
	 */
	@DistributedLock(key = "product:#id", waitTime = "5s")
	public Purchase purchaseFenced(String id) {
		return this.inventory.purchaseFenced(id, CurrentLock.fencingToken());
	}

}
