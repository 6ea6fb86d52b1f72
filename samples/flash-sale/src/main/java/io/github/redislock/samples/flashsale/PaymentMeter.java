package io.github.redislock.samples.flashsale;

import java.util.List;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Component;

/**
 * Counts the payments running at once across every instance, in Redis: a counter raised
 * when a payment starts and lowered when it ends, and the highest value it reached, the
 * peak. It measures what {@link PaymentGateway}'s limit is to guarantee, so it is kept
 * apart from the permits themselves: its figures do not come from the thing they check.
 *
 * @author redis-lock
 */
@Component
public class PaymentMeter {

	private static final String IN_FLIGHT_KEY = "flash-sale:payments:in-flight";

	private static final String PEAK_KEY = "flash-sale:payments:peak";

	// Raise the counter and the peak in one step, so that two payments starting together
	// in two instances cannot both read the old peak and leave the lower value behind
	private static final RedisScript<Long> ENTER = RedisScript.of("""
			local running = redis.call('INCR', KEYS[1])
			if running > tonumber(redis.call('GET', KEYS[2]) or '0') then
				redis.call('SET', KEYS[2], running)
			end
			return running""", Long.class);

	private final StringRedisTemplate redis;

	/**
	 * Create the meter.
	 * @param redis the application's Redis template
	 */
	public PaymentMeter(StringRedisTemplate redis) {
		this.redis = redis;
	}

	/**
	 * Count a payment that starts.
	 * @return how many payments run now, this one included
	 */
	public long enter() {
		Long running = this.redis.execute(ENTER, List.of(IN_FLIGHT_KEY, PEAK_KEY));
		return (running != null) ? running : 0;
	}

	/**
	 * Count a payment that ended, whether it succeeded or not.
	 */
	public void exit() {
		this.redis.opsForValue().decrement(IN_FLIGHT_KEY);
	}

	/**
	 * Return how many payments run now, across every instance.
	 * @return the payments running
	 */
	public long inFlight() {
		return parse(this.redis.opsForValue().get(IN_FLIGHT_KEY));
	}

	/**
	 * Return the most payments that ran at once since the last {@link #resetPeak()}.
	 * @return the peak, zero when none ran
	 */
	public long peak() {
		return parse(this.redis.opsForValue().get(PEAK_KEY));
	}

	/**
	 * Forget the peak, to measure a new round of payments; the next payment to start sets
	 * it again.
	 */
	public void resetPeak() {
		this.redis.delete(PEAK_KEY);
	}

	private static long parse(String value) {
		return (value != null) ? Long.parseLong(value) : 0;
	}

}
