package io.github.redislock.samples.flashsale;

/**
 * The outcome of one purchase attempt.
 *
 * @param product the product id
 * @param sold whether an item was sold; {@code false} when the product was sold out
 * @param stockLeft the stock the purchase saw or left behind
 * @author redis-lock
 */
public record Purchase(String product, boolean sold, long stockLeft) {

}
