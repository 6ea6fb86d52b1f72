package io.github.redislock.samples.flashsale.demo;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Sends purchases to the instances of the sample, a fixed number at a time, spread over
 * the instances in turn, and counts the answers.
 *
 * @author redis-lock
 */
public final class PurchaseLoad {

	private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

	private final HttpClient client = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(5))
		.build();

	private final List<URI> instances;

	private final int concurrency;

	/**
	 * Create a load over the given instances.
	 * @param instances the base URIs of the instances, such as
	 * {@code http://127.0.0.1:8080}
	 * @param concurrency how many purchases are in flight at a time
	 */
	public PurchaseLoad(List<URI> instances, int concurrency) {
		this.instances = List.copyOf(instances);
		this.concurrency = concurrency;
	}

	/**
	 * Send the purchases and wait for every answer.
	 * @param path the purchase path, such as {@code /products/1/purchase}
	 * @param purchases how many purchases to send
	 * @param onAnswer called after each purchase, from the sending threads
	 * @return the answers counted
	 * @throws InterruptedException if interrupted while waiting
	 */
	public LoadResult run(String path, int purchases, Runnable onAnswer) throws InterruptedException {
		AtomicInteger sold = new AtomicInteger();
		AtomicInteger rejected = new AtomicInteger();
		AtomicInteger busy = new AtomicInteger();
		AtomicInteger failed = new AtomicInteger();
		AtomicReference<String> firstFailure = new AtomicReference<>();
		long[] latencies = new long[purchases];
		ExecutorService senders = Executors.newFixedThreadPool(this.concurrency);
		long start = System.nanoTime();
		for (int i = 0; i < purchases; i++) {
			int index = i;
			HttpRequest request = HttpRequest.newBuilder(this.instances.get(i % this.instances.size()).resolve(path))
				.timeout(REQUEST_TIMEOUT)
				.POST(BodyPublishers.noBody())
				.build();
			senders.execute(() -> {
				long sent = System.nanoTime();
				String failure = null;
				try {
					int status = this.client.send(request, BodyHandlers.discarding()).statusCode();
					switch (status) {
						case 200 -> sold.incrementAndGet();
						case 409 -> rejected.incrementAndGet();
						case 503 -> {
							rejected.incrementAndGet();
							busy.incrementAndGet();
						}
						default -> failure = "HTTP " + status + " from " + request.uri();
					}
				}
				catch (IOException ex) {
					failure = ex + " from " + request.uri();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					failure = "interrupted";
				}
				if (failure != null) {
					failed.incrementAndGet();
					firstFailure.compareAndSet(null, failure);
				}
				latencies[index] = System.nanoTime() - sent;
				onAnswer.run();
			});
		}
		senders.shutdown();
		// Each purchase ends within its timeout, so all end within this
		long bound = REQUEST_TIMEOUT.toSeconds() * (purchases / this.concurrency + 1);
		if (!senders.awaitTermination(bound, TimeUnit.SECONDS)) {
			throw new IllegalStateException("Purchases still running after their timeouts");
		}
		return new LoadResult(sold.get(), rejected.get(), busy.get(), failed.get(),
				Duration.ofNanos(System.nanoTime() - start), latencies, firstFailure.get());
	}

}
