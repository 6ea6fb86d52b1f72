package io.github.redislock.webflux;

import java.time.Duration;

import reactor.core.publisher.Mono;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import io.github.redislock.LockRequest;
import io.github.redislock.ReactiveLockOperations;

/**
 * The purchase endpoints of the WebFlux flash sale: one item per request, {@code 200}
 * when it was sold, {@code 409} "sold out" when none was left. The same unprotected
 * purchase runs under the lock {@code stock:<item>}, taken through
 * {@link ReactiveLockOperations} or by {@link LockedCheckout}'s {@code @DistributedLock},
 * and without any lock.
 */
@RestController
@RequestMapping("/items/{item}")
class FlashSaleController {

	/** Long enough for every other purchase of the run to go first. */
	static final Duration WAIT_TIME = Duration.ofSeconds(30);

	private final ReactiveInventory inventory;

	private final ReactiveLockOperations locks;

	private final LockedCheckout checkout;

	FlashSaleController(ReactiveInventory inventory, ReactiveLockOperations locks, LockedCheckout checkout) {
		this.inventory = inventory;
		this.locks = locks;
		this.checkout = checkout;
	}

	@PostMapping("/purchase")
	Mono<ResponseEntity<String>> purchase(@PathVariable("item") String item) {
		return this.locks.execute(LockRequest.of("stock:" + item).waitTime(WAIT_TIME), this.inventory.purchase(item))
			.map(FlashSaleController::answer);
	}

	@PostMapping("/purchase-annotated")
	Mono<ResponseEntity<String>> purchaseAnnotated(@PathVariable("item") String item) {
		return this.checkout.purchase(item).map(FlashSaleController::answer);
	}

	@PostMapping("/purchase-unsafe")
	Mono<ResponseEntity<String>> purchaseUnsafe(@PathVariable("item") String item) {
		return this.inventory.purchase(item).map(FlashSaleController::answer);
	}

	static ResponseEntity<String> answer(boolean sold) {
		return sold ? ResponseEntity.ok("sold") : ResponseEntity.status(HttpStatus.CONFLICT).body("sold out");
	}

}
