package io.github.redislock.samples.flashsale;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The payment service's load across every instance ({@link PaymentMeter}), next to its
 * limit, for the demo and for watching by hand.
 *
 * @author redis-lock
 */
@RestController
@RequestMapping("/payments")
public class PaymentController {

	private final PaymentMeter meter;

	private final int limit;

	/**
	 * Create the controller.
	 * @param meter the meter of the payments
	 * @param properties the sample's settings, for the limit
	 */
	public PaymentController(PaymentMeter meter, FlashSaleProperties properties) {
		this.meter = meter;
		this.limit = properties.getPayment().getMaxConcurrent();
	}

	/**
	 * Show the limit, the payments running now and their peak.
	 * @return the payments
	 */
	@GetMapping
	public Payments payments() {
		return new Payments(this.limit, this.meter.inFlight(), this.meter.peak());
	}

	/**
	 * Forget the peak, to measure a new round of payments.
	 * @return {@code 204}
	 */
	@DeleteMapping("/peak")
	public ResponseEntity<Void> resetPeak() {
		this.meter.resetPeak();
		return ResponseEntity.noContent().build();
	}

}
