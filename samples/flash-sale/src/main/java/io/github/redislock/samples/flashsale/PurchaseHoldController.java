package io.github.redislock.samples.flashsale;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The demo's endpoints to hold a purchase between its read and its write
 * ({@link PurchaseHold}); present only with {@code flash-sale.demo-hooks=true}, which the
 * demo sets on the instances it starts.
 *
 * @author redis-lock
 */
@RestController
@RequestMapping("/products/{id}/hold")
@ConditionalOnBooleanProperty("flash-sale.demo-hooks")
public class PurchaseHoldController {

	private final PurchaseHold hold;

	/**
	 * Create the controller.
	 * @param hold the hold it arms and releases
	 */
	public PurchaseHoldController(PurchaseHold hold) {
		this.hold = hold;
	}

	/**
	 * Hold the next purchase of the product after it read the stock.
	 * @param id the product id
	 * @return {@code 204}
	 */
	@PostMapping
	public ResponseEntity<Void> arm(@PathVariable String id) {
		this.hold.arm(id);
		return ResponseEntity.noContent().build();
	}

	/**
	 * Tell whether a purchase of the product is held now.
	 * @param id the product id
	 * @return {@code 200} when one is held, holding the product's lock, else {@code 404}
	 */
	@GetMapping
	public ResponseEntity<Void> holding(@PathVariable String id) {
		return this.hold.isHolding(id) ? ResponseEntity.ok().build() : ResponseEntity.notFound().build();
	}

	/**
	 * Let the held purchase of the product write the stock.
	 * @param id the product id
	 * @return {@code 204}
	 */
	@DeleteMapping
	public ResponseEntity<Void> release(@PathVariable String id) {
		this.hold.release(id);
		return ResponseEntity.noContent().build();
	}

}
