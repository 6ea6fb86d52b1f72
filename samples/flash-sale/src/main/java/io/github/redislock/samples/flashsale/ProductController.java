package io.github.redislock.samples.flashsale;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import io.github.redislock.LockLostException;
import io.github.redislock.LockTimeoutException;
import io.github.redislock.StaleFencingTokenException;

/**
 * The shop's HTTP API. A purchase answers {@code 200} with the item sold, {@code 409}
 * when the product is sold out or a fenced write was refused, {@code 503} when the lock
 * stayed busy (or, for a paid purchase, the payment service did) and {@code 500} when the
 * lock expired before the purchase ended.
 *
 * @author redis-lock
 */
@RestController
@RequestMapping("/products/{id}")
public class ProductController {

	private final Inventory inventory;

	private final Checkout checkout;

	private final PaymentGateway payments;

	/**
	 * Create the controller.
	 * @param inventory the stock, and the purchase without the lock
	 * @param checkout the purchase under the lock
	 * @param payments the payment service, for the paid purchase
	 */
	public ProductController(Inventory inventory, Checkout checkout, PaymentGateway payments) {
		this.inventory = inventory;
		this.checkout = checkout;
		this.payments = payments;
	}

	/**
	 * Show a product's stock and sales.
	 * @param id the product id
	 * @return the product, or {@code 404} if it was never restocked
	 */
	@GetMapping
	public ResponseEntity<Product> product(@PathVariable String id) {
		return ResponseEntity.of(this.inventory.find(id));
	}

	/**
	 * Buy one item under the product's distributed lock.
	 * @param id the product id
	 * @return the purchase
	 */
	@PostMapping("/purchase")
	public ResponseEntity<Purchase> purchase(@PathVariable String id) {
		return respond(this.checkout.purchase(id));
	}

	/**
	 * Buy one item under the product's distributed lock, writing the stock with the
	 * lock's fencing token.
	 * @param id the product id
	 * @return the purchase
	 */
	@PostMapping("/purchase-fenced")
	public ResponseEntity<Purchase> purchaseFenced(@PathVariable String id) {
		return respond(this.checkout.purchaseFenced(id));
	}

	/**
	 * Buy one item under the product's distributed lock, then charge for it through the
	 * payment service, which runs at most {@code flash-sale.payment.max-concurrent} calls
	 * at once across the instances. The charge comes after the lock is released: held
	 * over a slow call, the product's lock would make every other purchase of the product
	 * wait for the payment too.
	 * @param id the product id
	 * @return the purchase, {@code 503} when the payment service stayed busy for five
	 * seconds (the item stays sold, uncharged: a real shop would put it back)
	 */
	@PostMapping("/purchase-paid")
	public ResponseEntity<Purchase> purchasePaid(@PathVariable String id) {
		Purchase purchase = this.checkout.purchase(id);
		if (purchase.sold()) {
			this.payments.charge(id);
		}
		return respond(purchase);
	}

	/**
	 * Buy one item with the same logic and no lock, to see what the lock prevents.
	 * @param id the product id
	 * @return the purchase
	 */
	@PostMapping("/purchase-unsafe")
	public ResponseEntity<Purchase> purchaseUnsafe(@PathVariable String id) {
		return respond(this.inventory.purchase(id));
	}

	/**
	 * Set a product's stock and clear its sales, creating the product if needed.
	 * @param id the product id
	 * @param stock the new stock
	 * @return the product
	 */
	@PostMapping("/restock")
	public Product restock(@PathVariable String id, @RequestParam(defaultValue = "100") long stock) {
		return this.inventory.restock(id, stock);
	}

	/**
	 * Answer {@code 503} to a purchase that waited for the lock in vain.
	 * @param ex the exception
	 * @return the response
	 */
	@ExceptionHandler
	public ResponseEntity<String> lockBusy(LockTimeoutException ex) {
		return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).header("Retry-After", "1").body(ex.getMessage());
	}

	/**
	 * Answer {@code 409} to a purchase whose fenced write was refused: its lock expired
	 * and a later holder wrote the product, so nothing was sold.
	 * @param ex the exception
	 * @return the response
	 */
	@ExceptionHandler
	public ResponseEntity<String> staleWrite(StaleFencingTokenException ex) {
		return ResponseEntity.status(HttpStatus.CONFLICT).body(ex.getMessage());
	}

	/**
	 * Answer {@code 500} to a purchase whose lock expired before it ended: its writes
	 * went through without protection, and may have overwritten another purchase's.
	 * @param ex the exception
	 * @return the response
	 */
	@ExceptionHandler
	public ResponseEntity<String> lockLost(LockLostException ex) {
		return ResponseEntity.status(HttpStatus.INTERNAL_SERVER_ERROR).body(ex.getMessage());
	}

	private static ResponseEntity<Purchase> respond(Purchase purchase) {
		return ResponseEntity.status(purchase.sold() ? HttpStatus.OK : HttpStatus.CONFLICT).body(purchase);
	}

}
