package io.github.redislock.samples.flashsale;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import org.springframework.stereotype.Component;

/**
 * A hook for the demo: stops the next purchase of a product after it read the stock and
 * before it writes it, holding the product's lock, until released. The demo then knows
 * the instance holds {@code product:<id>} when it stops the JVM with {@code SIGSTOP}, so
 * the paused-holder run is the same every time. Disarmed, as always outside the demo, it
 * costs a purchase one uncontended monitor.
 *
 * <p>
 * One purchase at a time is held per JVM. Reached only through the endpoints of
 * {@link PurchaseHoldController}, which exist when {@code flash-sale.demo-hooks=true}.
 *
 * @author redis-lock
 */
@Component
public class PurchaseHold {

	/** Longest a purchase is held when nobody releases it, so that none hangs forever. */
	private static final Duration MAX_HOLD = Duration.ofMinutes(1);

	private @Nullable String armed;

	private @Nullable String holding;

	/**
	 * Hold the next purchase of the product, replacing any earlier arming, and release a
	 * purchase still held.
	 * @param id the product id
	 */
	public synchronized void arm(String id) {
		this.armed = id;
		this.holding = null;
		notifyAll();
	}

	/**
	 * Return whether a purchase of the product is held now.
	 * @param id the product id
	 * @return whether it is held, having read the stock and holding the product's lock
	 */
	public synchronized boolean isHolding(String id) {
		return id.equals(this.holding);
	}

	/**
	 * Let the held purchase of the product go on to write the stock, or disarm the hold
	 * when none was held yet.
	 * @param id the product id
	 */
	public synchronized void release(String id) {
		if (id.equals(this.armed)) {
			this.armed = null;
		}
		if (id.equals(this.holding)) {
			this.holding = null;
			notifyAll();
		}
	}

	/**
	 * Called by a purchase between its read and its write: waits there until released
	 * when armed for this product, else returns at once.
	 * @param id the product id
	 */
	synchronized void reached(String id) {
		if (!id.equals(this.armed)) {
			return;
		}
		this.armed = null;
		this.holding = id;
		notifyAll();
		long deadline = System.nanoTime() + MAX_HOLD.toNanos();
		try {
			while (id.equals(this.holding)) {
				long remaining = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
				if (remaining <= 0) {
					this.holding = null;
					return;
				}
				wait(remaining);
			}
		}
		catch (InterruptedException ex) {
			this.holding = null;
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while a purchase was held", ex);
		}
	}

}
