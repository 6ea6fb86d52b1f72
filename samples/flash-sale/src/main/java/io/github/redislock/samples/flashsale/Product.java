package io.github.redislock.samples.flashsale;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * A product's stock and sales, as {@code GET /products/{id}} shows them, with the
 * oversold items.
 *
 * @param id the product id
 * @param stock the items left in stock
 * @param sold the purchases that succeeded since the last restock
 * @param restocked the stock set by the last restock
 * @author redis-lock
 */
public record Product(String id, long stock, long sold, long restocked) {

	/**
	 * Return how many more items were sold than there were in stock: purchases that
	 * succeeded on a stock another purchase had already taken.
	 * @return the oversold items, zero when sales stayed within the stock
	 */
	@JsonProperty
	public long oversold() {
		return Math.max(0, this.sold - this.restocked);
	}

}
