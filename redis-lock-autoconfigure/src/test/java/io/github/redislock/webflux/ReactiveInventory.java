package io.github.redislock.webflux;

import java.time.Duration;

import reactor.core.publisher.Mono;

import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.ReactiveValueOperations;

/**
 * Stock and sales of flash-sale items in Redis, and the purchase itself, deliberately
 * unprotected and entirely reactive: {@link #purchase(String)} reads the stock, checks
 * it, and writes it back one lower, three commands that are correct only while no other
 * purchase of the same item runs at the same time. Sales are counted with an atomic
 * {@code INCR}, so that they show every item sold, including those that did not exist.
 */
class ReactiveInventory {

	private static final String STOCK = "webflux-sale:stock:";

	private static final String SOLD = "webflux-sale:sold:";

	private final ReactiveValueOperations<String, String> values;

	private final Duration thinkTime;

	/**
	 * Create the inventory.
	 * @param redis the application's reactive Redis template
	 * @param thinkTime how long a purchase takes between its check and its write
	 */
	ReactiveInventory(ReactiveStringRedisTemplate redis, Duration thinkTime) {
		this.values = redis.opsForValue();
		this.thinkTime = thinkTime;
	}

	/**
	 * Sell one item if any is left.
	 * @param item the item
	 * @return whether an item was sold
	 */
	Mono<Boolean> purchase(String item) {
		return count(STOCK + item).flatMap((stock) -> {
			if (stock <= 0) {
				return Mono.just(false);
			}
			// Stands for the payment and other calls a checkout makes between its check
			// and its write: a timer, no thread waits. It makes the race the lock closes
			// certain rather than likely.
			return Mono.delay(this.thinkTime)
				.then(this.values.set(STOCK + item, Long.toString(stock - 1)))
				.then(this.values.increment(SOLD + item))
				.thenReturn(true);
		});
	}

	/**
	 * Set the stock of an item and clear its sales.
	 * @param item the item
	 * @param stock the new stock
	 * @return completes once written
	 */
	Mono<Void> restock(String item, long stock) {
		return this.values.set(STOCK + item, Long.toString(stock)).then(this.values.set(SOLD + item, "0")).then();
	}

	/**
	 * Return the stock left.
	 * @param item the item
	 * @return the stock, 0 if never set
	 */
	Mono<Long> stock(String item) {
		return count(STOCK + item);
	}

	/**
	 * Return how many items were sold since the last restock.
	 * @param item the item
	 * @return the sales, 0 if never set
	 */
	Mono<Long> sold(String item) {
		return count(SOLD + item);
	}

	private Mono<Long> count(String key) {
		return this.values.get(key).map(Long::parseLong).defaultIfEmpty(0L);
	}

}
