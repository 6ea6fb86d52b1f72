package io.github.redislock.samples.flashsale;

/**
 * The payment service's load, as {@code GET /payments} shows it.
 *
 * @param limit how many payments may run at once across every instance
 * ({@code flash-sale.payment.max-concurrent})
 * @param inFlight how many run now
 * @param peak the most that ran at once since the peak was last reset
 * @author redis-lock
 */
public record Payments(int limit, long inFlight, long peak) {

}
