package io.github.redislock.virtualthreads;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;

import io.github.redislock.DistributedLock;

/**
 * An application that sells stock from {@code @Async} methods, on the task executor
 * Spring Boot configures, through {@code @DistributedLock} methods of another bean: the
 * lock must be held where the work runs, not where it is handed to the executor.
 */
@Configuration(proxyBeanMethods = false)
@EnableAsync
class StockConfiguration {

	static final int PRODUCTS = 5;

	@Bean
	Stock stock() {
		return new Stock();
	}

	@Bean
	Purchases purchases(Stock stock) {
		return new Purchases(stock);
	}

	/** Buys on the application's task executor. */
	static class Purchases {

		private final Stock stock;

		Purchases(Stock stock) {
			this.stock = stock;
		}

		@Async
		public CompletableFuture<Void> buy(int product) {
			this.stock.sell(product);
			return CompletableFuture.completedFuture(null);
		}

		@Async
		public CompletableFuture<Void> buyWithoutWaiting(int product) {
			this.stock.sellWithoutWaiting(product);
			return CompletableFuture.completedFuture(null);
		}

	}

	/**
	 * The overlap detector: per product, a count of sales incremented without atomicity,
	 * which only a working lock keeps exact, and calls that found another inside.
	 */
	static class Stock {

		private final AtomicIntegerArray sold = new AtomicIntegerArray(PRODUCTS);

		private final AtomicIntegerArray inside = new AtomicIntegerArray(PRODUCTS);

		private final AtomicInteger overlaps = new AtomicInteger();

		private final AtomicInteger callsOnPlatformThreads = new AtomicInteger();

		@DistributedLock(key = "product:#product", waitTime = "20s")
		public void sell(int product) {
			record(product);
		}

		@DistributedLock(key = "product:#product", waitTime = "200ms")
		public void sellWithoutWaiting(int product) {
			record(product);
		}

		public int sold(int product) {
			return this.sold.get(product);
		}

		public int overlaps() {
			return this.overlaps.get();
		}

		public int callsOnPlatformThreads() {
			return this.callsOnPlatformThreads.get();
		}

		private void record(int product) {
			if (!Thread.currentThread().isVirtual()) {
				this.callsOnPlatformThreads.incrementAndGet();
			}
			if (this.inside.incrementAndGet(product) > 1) {
				this.overlaps.incrementAndGet();
			}
			int value = this.sold.get(product);
			Thread.yield();
			this.sold.set(product, value + 1);
			this.inside.decrementAndGet(product);
		}

	}

}
