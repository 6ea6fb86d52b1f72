package io.github.redislock.samples.flashsale;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse.BodyHandlers;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import io.github.redislock.LockHandle;
import io.github.redislock.LockOperations;
import io.github.redislock.StaleFencingTokenException;
import io.github.redislock.samples.flashsale.demo.LoadResult;
import io.github.redislock.samples.flashsale.demo.PurchaseLoad;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The demo's scenario, smaller: concurrent purchases over HTTP against a real Redis.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
class FlashSaleApplicationTests {

	private static final int STOCK = 20;

	private static final int PURCHASES = 200;

	private static final int THREADS = 16;

	@LocalServerPort
	private int port;

	@Autowired
	private Inventory inventory;

	@Autowired
	private LockOperations locks;

	@Autowired
	private ConfigurableEnvironment environment;

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		TestRedis.register(registry);
	}

	@Test
	void lockedPurchasesSellTheStockAndNoMore() throws InterruptedException {
		this.inventory.restock("locked", STOCK);
		LoadResult result = load().run("/products/locked/purchase", PURCHASES, () -> {
		});
		assertThat(result.failed()).as(result.firstFailure()).isZero();
		assertThat(result.oversold(STOCK)).isZero();
		assertThat(result.sold()).isEqualTo(STOCK);
		assertThat(result.rejected()).isEqualTo(PURCHASES - STOCK);
		assertThat(this.inventory.find("locked")).hasValue(new Product("locked", 0, STOCK, STOCK));
	}

	@Test
	void fencedPurchasesSellTheStockAndNoMore() throws InterruptedException {
		this.inventory.restock("fenced", STOCK);
		LoadResult result = load().run("/products/fenced/purchase-fenced", PURCHASES, () -> {
		});
		assertThat(result.failed()).as(result.firstFailure()).isZero();
		assertThat(result.sold()).isEqualTo(STOCK);
		assertThat(result.rejected()).isEqualTo(PURCHASES - STOCK);
		assertThat(this.inventory.find("fenced")).hasValue(new Product("fenced", 0, STOCK, STOCK));
	}

	@Test
	void fencedPurchaseWithAnOlderTokenThanTheLastWriterIsRefusedAndWritesNothing() {
		this.inventory.restock("stale", STOCK);
		long token;
		try (LockHandle lock = this.locks.lock("product:stale")) {
			token = lock.fencingToken();
		}
		try (LockHandle lock = this.locks.lock("product:stale")) {
			this.inventory.purchaseFenced("stale", lock.fencingToken());
		}
		assertThatExceptionOfType(StaleFencingTokenException.class)
			.isThrownBy(() -> this.inventory.purchaseFenced("stale", token));
		assertThat(this.inventory.find("stale")).hasValue(new Product("stale", STOCK - 1, 1, STOCK));
	}

	@Test
	void holdEndpointsAreAbsentUnlessDemoHooksAreOn() throws Exception {
		HttpClient client = HttpClient.newHttpClient();
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + "/products/1/hold"))
			.POST(BodyPublishers.noBody())
			.build();
		assertThat(client.send(request, BodyHandlers.discarding()).statusCode()).isEqualTo(404);
	}

	@Test
	void unsafePurchasesSellAtLeastTheStockAndCountEverySale() throws InterruptedException {
		this.inventory.restock("unsafe", STOCK);
		LoadResult result = load().run("/products/unsafe/purchase-unsafe", PURCHASES, () -> {
		});
		assertThat(result.failed()).as(result.firstFailure()).isZero();
		assertThat(result.sold() + result.rejected()).isEqualTo(PURCHASES);
		// How many more it sells depends on timing; every sale is counted whatever the
		// race
		assertThat(result.sold()).isGreaterThanOrEqualTo(STOCK);
		assertThat(this.inventory.find("unsafe")).hasValueSatisfying((product) -> {
			assertThat(product.sold()).isEqualTo(result.sold());
			assertThat(product.oversold()).isEqualTo(result.oversold(STOCK));
		});
	}

	@Test
	void usesTheConfiguredRedisAndStartsNone() {
		assertThat(this.environment.getPropertySources().contains("embeddedRedis")).isFalse();
		assertThat(this.environment.getProperty("spring.data.redis.port", Integer.class))
			.isEqualTo(TestRedis.server.port());
	}

	private PurchaseLoad load() {
		return new PurchaseLoad(List.of(URI.create("http://127.0.0.1:" + this.port)), THREADS);
	}

}
