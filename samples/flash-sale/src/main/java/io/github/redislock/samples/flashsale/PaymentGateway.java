package io.github.redislock.samples.flashsale;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.springframework.stereotype.Service;

import io.github.redislock.DistributedConcurrencyLimit;
import io.github.redislock.LockTimeoutException;

/**
 * The payment partner's service, simulated: a slow call, which the partner allows at most
 * {@code flash-sale.payment.max-concurrent} (3) times at once for the whole shop, however
 * many instances it runs. Spring's {@code @ConcurrencyLimit} would limit each instance on
 * its own, and two instances could then make six calls at once;
 * {@link DistributedConcurrencyLimit @DistributedConcurrencyLimit} counts the calls of
 * every instance in Redis.
 *
 * <p>
 * Each call is counted by the {@link PaymentMeter}, whose peak shows how many ran at once
 * across the instances.
 *
 * @author redis-lock
 */
@Service
public class PaymentGateway {

	private final PaymentMeter meter;

	private final long minNanos;

	private final long maxNanos;

	/**
	 * Create the gateway.
	 * @param meter the meter that counts the calls running at once
	 * @param properties the sample's settings, for how long a call takes
	 */
	public PaymentGateway(PaymentMeter meter, FlashSaleProperties properties) {
		this.meter = meter;
		Duration min = properties.getPayment().getMinTime();
		Duration max = properties.getPayment().getMaxTime();
		if (min.isNegative() || max.compareTo(min) < 0) {
			throw new IllegalArgumentException("flash-sale.payment.min-time (" + min
					+ ") must not be negative nor above flash-sale.payment.max-time (" + max + "): set them so");
		}
		this.minNanos = min.toNanos();
		this.maxNanos = max.toNanos();
	}

	/**
	 * Charge the customer for one item of the product, holding one of the payment
	 * service's permits for the length of the call.
	 * @param product the product id
	 * @throws LockTimeoutException when every permit stayed taken for the whole five
	 * seconds of waiting: nothing was charged
	 */
	@DistributedConcurrencyLimit(limitString = "${flash-sale.payment.max-concurrent:3}", key = "payment-gateway",
			waitTime = "5s")
	public void charge(String product) {
		this.meter.enter();
		try {
			// Stands for the partner's answer, slow and uneven
			TimeUnit.NANOSECONDS.sleep(ThreadLocalRandom.current().nextLong(this.minNanos, this.maxNanos + 1));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while charging for product " + product, ex);
		}
		finally {
			this.meter.exit();
		}
	}

}
