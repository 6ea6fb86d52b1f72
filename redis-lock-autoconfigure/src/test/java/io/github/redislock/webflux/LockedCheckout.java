package io.github.redislock.webflux;

import reactor.core.publisher.Mono;

import io.github.redislock.DistributedLock;

/**
 * The flash sale's purchase under {@link DistributedLock @DistributedLock}: the method
 * returns a {@link Mono}, so the lock {@code stock:<item>} is held from the Mono's
 * subscription to its end, not for the call that merely assembles it.
 */
class LockedCheckout {

	private final ReactiveInventory inventory;

	LockedCheckout(ReactiveInventory inventory) {
		this.inventory = inventory;
	}

	/**
	 * Sell one item if any is left, under the lock of the item's stock.
	 * @param item the item
	 * @return whether an item was sold
	 */
	@DistributedLock(key = "stock:#item", waitTime = "30s")
	public Mono<Boolean> purchase(String item) {
		return this.inventory.purchase(item);
	}

}
