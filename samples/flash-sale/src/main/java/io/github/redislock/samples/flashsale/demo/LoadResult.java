package io.github.redislock.samples.flashsale.demo;

import java.time.Duration;
import java.util.Arrays;

import org.jspecify.annotations.Nullable;

/**
 * What a {@link PurchaseLoad} run got back.
 *
 * @param sold purchases answered {@code 200}: an item sold
 * @param rejected purchases answered {@code 409} (sold out) or {@code 503} (the lock
 * stayed busy)
 * @param busy the purchases among the rejected ones answered {@code 503}: they gave up
 * waiting for the lock
 * @param failed purchases that got another answer or none
 * @param elapsed time from the first request to the last answer
 * @param latencies the time each purchase took, in nanoseconds, sorted
 * @param firstFailure what went wrong with the first failed purchase, if any did
 * @author redis-lock
 */
public record LoadResult(int sold, int rejected, int busy, int failed, Duration elapsed, long[] latencies,
		@Nullable String firstFailure) {

	/**
	 * Create a result, sorting a copy of the latencies.
	 */
	public LoadResult {
		latencies = latencies.clone();
		Arrays.sort(latencies);
	}

	/**
	 * Return how many more items were sold than there were in stock.
	 * @param stock the stock at the start
	 * @return the oversold items, zero when sales stayed within the stock
	 */
	public int oversold(int stock) {
		return Math.max(0, this.sold - stock);
	}

	/**
	 * Return a latency percentile, by the nearest-rank method.
	 * @param percent the percentile, such as {@code 99}
	 * @return the latency below which that share of purchases completed
	 */
	public Duration percentile(double percent) {
		if (this.latencies.length == 0) {
			return Duration.ZERO;
		}
		int rank = (int) Math.ceil(percent / 100 * this.latencies.length);
		return Duration.ofNanos(this.latencies[Math.max(0, rank - 1)]);
	}

}
