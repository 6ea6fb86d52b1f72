package io.github.redislock.samples.flashsale;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.springframework.data.redis.core.HashOperations;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Service;

import io.github.redislock.StaleFencingTokenException;
import io.github.redislock.fencing.FencedRedisOperations;

/**
 * Stock and sales of products, held in Redis as one hash per product, and the purchase
 * logic itself, deliberately unprotected: {@link #purchase(String)} is correct only while
 * no other purchase of the same product runs at the same time, in this JVM or another.
 * {@link Checkout} runs it under a distributed lock; {@code /purchase-unsafe} calls it
 * directly. {@link #purchaseFenced(String, long)} is the same purchase writing with the
 * lock's fencing token, so that a holder whose lock expired cannot overwrite the stock
 * sold by the next holder.
 *
 * @author redis-lock
 */
@Service
public class Inventory {

	private static final String KEY_PREFIX = "flash-sale:product:";

	private static final String PRODUCTS_KEY = "flash-sale:products";

	private static final String STOCK = "stock";

	private static final String SOLD = "sold";

	private static final String RESTOCKED = "restocked";

	private final StringRedisTemplate redis;

	private final HashOperations<String, String, String> hashes;

	private final FencedRedisOperations fenced;

	private final PurchaseHold hold;

	private final Duration thinkTime;

	/**
	 * Create the inventory.
	 * @param redis the application's Redis template
	 * @param fenced the fenced writes, for {@link #purchaseFenced(String, long)}
	 * @param hold the demo's hook between a purchase's read and its write
	 * @param properties the sample's settings, for the think time
	 */
	public Inventory(StringRedisTemplate redis, FencedRedisOperations fenced, PurchaseHold hold,
			FlashSaleProperties properties) {
		this.redis = redis;
		this.hashes = redis.opsForHash();
		this.fenced = fenced;
		this.hold = hold;
		this.thinkTime = properties.getThinkTime();
	}

	/**
	 * Sell one item if any is left: read the stock, check it, write it back one lower.
	 * Three steps, not one atomic command, as real checkouts often are: run concurrently
	 * for one product, two purchases can read the same stock and both sell the item.
	 * @param id the product id
	 * @return whether an item was sold, and the stock left
	 */
	public Purchase purchase(String id) {
		String key = KEY_PREFIX + id;
		long stock = parse(this.hashes.get(key, STOCK));
		if (stock <= 0) {
			return new Purchase(id, false, 0);
		}
		pause(id);
		this.hashes.put(key, STOCK, Long.toString(stock - 1));
		this.hashes.increment(key, SOLD, 1);
		return new Purchase(id, true, stock - 1);
	}

	/**
	 * Sell one item if any is left, as {@link #purchase(String)} does, but write the
	 * stock and sales in one fenced write carrying the lock's fencing token: Redis
	 * refuses it when a later holder of the lock has written the product since, which
	 * happens only when this holder's lock expired before its write (a long GC pause, a
	 * stopped VM).
	 * @param id the product id
	 * @param fencingToken the fencing token of the lock {@code product:<id>}, held
	 * @return whether an item was sold, and the stock left
	 * @throws StaleFencingTokenException when a later holder wrote the product: nothing
	 * was written, and the purchase must not be retried with this token
	 */
	public Purchase purchaseFenced(String id, long fencingToken) {
		String key = KEY_PREFIX + id;
		List<String> fields = this.hashes.multiGet(key, List.of(STOCK, SOLD));
		long stock = parse(fields.get(0));
		if (stock <= 0) {
			return new Purchase(id, false, 0);
		}
		pause(id);
		// Stock and sales in one write: a refused write leaves both as the later
		// holder left them
		this.fenced.putAll(key, Map.of(STOCK, Long.toString(stock - 1), SOLD, Long.toString(parse(fields.get(1)) + 1)),
				fencingToken);
		return new Purchase(id, true, stock - 1);
	}

	/**
	 * Set the stock of a product and clear its sales.
	 * @param id the product id
	 * @param stock the new stock
	 * @return the product
	 */
	public Product restock(String id, long stock) {
		String value = Long.toString(stock);
		// A plain write, outside any lock: the product's fence, left by fenced
		// purchases, stays as it was and the next holder's token, greater, passes it
		this.hashes.putAll(KEY_PREFIX + id, Map.of(STOCK, value, SOLD, "0", RESTOCKED, value));
		this.redis.opsForSet().add(PRODUCTS_KEY, id);
		return new Product(id, stock, 0, stock);
	}

	/**
	 * Return a product's stock and sales.
	 * @param id the product id
	 * @return the product, or empty if it was never restocked
	 */
	public Optional<Product> find(String id) {
		Map<String, String> fields = this.hashes.entries(KEY_PREFIX + id);
		if (fields.isEmpty()) {
			return Optional.empty();
		}
		return Optional
			.of(new Product(id, parse(fields.get(STOCK)), parse(fields.get(SOLD)), parse(fields.get(RESTOCKED))));
	}

	/**
	 * Return the ids of every product restocked so far.
	 * @return the product ids
	 */
	public Set<String> productIds() {
		Set<String> ids = this.redis.opsForSet().members(PRODUCTS_KEY);
		return (ids != null) ? ids : Set.of();
	}

	private void pause(String id) {
		// Stands for the payment and other calls a checkout makes between its check and
		// its write; without it the race is still there, only rarer
		try {
			TimeUnit.NANOSECONDS.sleep(this.thinkTime.toNanos());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted during a purchase", ex);
		}
		this.hold.reached(id);
	}

	private static long parse(String value) {
		return (value != null) ? Long.parseLong(value) : 0;
	}

}
