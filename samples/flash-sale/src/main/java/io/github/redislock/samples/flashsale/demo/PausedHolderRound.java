package io.github.redislock.samples.flashsale.demo;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The paused-holder run, the failure a lock cannot prevent on its own: instance A holds
 * {@code product:1}, has read the stock and is about to write it when its JVM is stopped
 * ({@code SIGSTOP}) for longer than the lock's fixed lease. B waits the lease out, takes
 * the lock and sells the whole stock. A is then resumed and writes the stock it read.
 *
 * <p>
 * Nothing here depends on timing: A is stopped only once it reports the purchase held
 * between its read and its write ({@code /products/1/hold}), B's purchases get the lock
 * only once A's lease ran out, and A writes only when released after {@code SIGCONT}.
 * Then both instances are asked for more purchases than the stock, to sell whatever A's
 * write left in stock.
 *
 * @author redis-lock
 */
final class PausedHolderRound {

	/** Stock of the product at the start of the run. */
	static final int STOCK = 10;

	/** Purchases sent to both instances once A wrote: twice the stock. */
	private static final int SELL_OUT = 2 * STOCK;

	private static final String PRODUCT = "/products/1";

	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	private final PrintStream out;

	private final HttpClient client;

	private final SampleInstance holder;

	private final SampleInstance other;

	/**
	 * Create the run.
	 * @param out where to draw its progress
	 * @param client the client to send the purchases with
	 * @param holder the instance that holds the lock and is paused: A
	 * @param other the instance that sells meanwhile: B
	 */
	PausedHolderRound(PrintStream out, HttpClient client, SampleInstance holder, SampleInstance other) {
		this.out = out;
		this.client = client;
		this.holder = holder;
		this.other = other;
	}

	/**
	 * Run the scenario once on product 1, restocked with {@link #STOCK} items.
	 * @param label the label of its progress bar
	 * @param endpoint the purchase endpoint, {@code /purchase} or
	 * {@code /purchase-fenced}
	 * @return what came of it
	 * @throws IOException if a request failed
	 * @throws InterruptedException if interrupted while waiting
	 */
	PausedHolderResult run(String label, String endpoint) throws IOException, InterruptedException {
		String path = PRODUCT + endpoint;
		send(this.holder, "POST", PRODUCT + "/restock?stock=" + STOCK, 200);
		send(this.holder, "POST", PRODUCT + "/hold", 204);
		try (ProgressBar bar = new ProgressBar(this.out, label, 1 + STOCK + SELL_OUT)) {
			long start = System.nanoTime();
			CompletableFuture<HttpResponse<String>> held = this.client.sendAsync(post(this.holder.uri(), path),
					BodyHandlers.ofString());
			awaitHolding(held);
			LoadResult whilePaused;
			this.holder.pause();
			try {
				whilePaused = new PurchaseLoad(List.of(this.other.uri()), STOCK).run(path, STOCK, bar::step);
			}
			finally {
				this.holder.resume();
			}
			send(this.holder, "DELETE", PRODUCT + "/hold", 204);
			HttpResponse<String> heldResponse = await(held);
			bar.step();
			LoadResult afterwards = new PurchaseLoad(List.of(this.holder.uri(), this.other.uri()), 8).run(path,
					SELL_OUT, bar::step);
			return new PausedHolderResult(heldResponse.statusCode(), heldResponse.body(), whilePaused, afterwards,
					Duration.ofNanos(System.nanoTime() - start));
		}
	}

	/**
	 * Wait until A's purchase holds the lock between its read and its write.
	 */
	private void awaitHolding(CompletableFuture<HttpResponse<String>> held) throws IOException, InterruptedException {
		long deadline = System.nanoTime() + TIMEOUT.toNanos();
		HttpRequest probe = HttpRequest.newBuilder(this.holder.uri().resolve(PRODUCT + "/hold"))
			.timeout(TIMEOUT)
			.build();
		while (this.client.send(probe, BodyHandlers.discarding()).statusCode() != 200) {
			if (held.isDone()) {
				throw new IllegalStateException("The purchase on A ended before it was held: " + await(held).body());
			}
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("The purchase on A was not held within " + TIMEOUT);
			}
			Thread.sleep(10);
		}
	}

	private HttpResponse<String> await(CompletableFuture<HttpResponse<String>> response)
			throws InterruptedException, IOException {
		try {
			return response.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
		}
		catch (ExecutionException ex) {
			throw new IOException("The purchase on A failed: " + ex.getCause(), ex.getCause());
		}
		catch (TimeoutException ex) {
			throw new IllegalStateException("The purchase on A did not answer within " + TIMEOUT, ex);
		}
	}

	private void send(SampleInstance instance, String method, String path, int expected)
			throws IOException, InterruptedException {
		URI uri = instance.uri().resolve(path);
		HttpRequest request = HttpRequest.newBuilder(uri)
			.timeout(TIMEOUT)
			.method(method, BodyPublishers.noBody())
			.build();
		int status = this.client.send(request, BodyHandlers.discarding()).statusCode();
		if (status != expected) {
			throw new IllegalStateException(method + " " + uri + " answered HTTP " + status + " rather than " + expected
					+ (status == 404 ? "; was the instance started with flash-sale.demo-hooks=true?" : ""));
		}
	}

	private static HttpRequest post(URI instance, String path) {
		return HttpRequest.newBuilder(instance.resolve(path)).timeout(TIMEOUT).POST(BodyPublishers.noBody()).build();
	}

}
