package io.github.redislock.samples.flashsale;

import java.time.Duration;

import org.springframework.stereotype.Service;

import io.github.redislock.DistributedLock;
import io.github.redislock.LockHandle;
import io.github.redislock.LockLostException;
import io.github.redislock.LockOperations;
import io.github.redislock.LockRequest;
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

	private static final Duration WAIT_TIME = Duration.ofSeconds(5);

	private final Inventory inventory;

	private final LockOperations locks;

	/**
	 * Create the checkout.
	 * @param inventory the unprotected purchase logic
	 * @param locks the locks, for {@link #purchaseFenced(String)}
	 */
	public Checkout(Inventory inventory, LockOperations locks) {
		this.inventory = inventory;
		this.locks = locks;
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
	 * lock is the same, taken through {@link LockOperations} for its handle.
	 * @param id the product id
	 * @return whether an item was sold, and the stock left
	 * @throws LockTimeoutException when other purchases of the product held the lock for
	 * the whole five seconds of waiting
	 * @throws StaleFencingTokenException when the lock expired and a later holder wrote
	 * the product before this purchase did: nothing was written
	 * @throws LockLostException when the lock expired before the purchase ended but no
	 * later holder had written yet, so the write went through
	 */
	public Purchase purchaseFenced(String id) {
		try (LockHandle lock = this.locks.lock(LockRequest.of("product:" + id).waitTime(WAIT_TIME))) {
			return this.inventory.purchaseFenced(id, lock.fencingToken());
		}
	}

}
