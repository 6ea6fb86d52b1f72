package io.github.redislock.samples.flashsale;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The demo's endpoints to hold a purchase between its read and its write
 * ({@link PurchaseHold}); they answer {@code 404} unless
 * {@code flash-sale.demo-hooks=true}, which the demo sets on the instances it starts.
 *
 * <p>
 * The property is read at each request rather than in a condition on the bean: an
 * application processed ahead of time has the beans its build saw, and the build does not
 * run with the demo's properties.
 *
 * @author redis-lock
 */
@RestController
@RequestMapping("/products/{id}/hold")
public class PurchaseHoldController {

	private final PurchaseHold hold;

	private final boolean enabled;

	/**
	 * Create the controller.
	 * @param hold the hold it arms and releases
	 * @param properties the sample's settings, for {@code flash-sale.demo-hooks}
	 */
	public PurchaseHoldController(PurchaseHold hold, FlashSaleProperties properties) {
		this.hold = hold;
		this.enabled = properties.isDemoHooks();
	}

	/**
	 * Hold the next purchase of the product after it read the stock.
	 * @param id the product id
	 * @return {@code 204}
	 */
	@PostMapping
	public ResponseEntity<Void> arm(@PathVariable String id) {
		if (!this.enabled) {
			return ResponseEntity.notFound().build();
		}
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
		return (this.enabled && this.hold.isHolding(id)) ? ResponseEntity.ok().build()
				: ResponseEntity.notFound().build();
	}

	/**
	 * Let the held purchase of the product write the stock.
	 * @param id the product id
	 * @return {@code 204}
	 */
	@DeleteMapping
	public ResponseEntity<Void> release(@PathVariable String id) {
		if (!this.enabled) {
			return ResponseEntity.notFound().build();
		}
		this.hold.release(id);
		return ResponseEntity.noContent().build();
	}

}
