package io.github.redislock.samples.flashsale;

import java.net.URI;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import io.github.redislock.samples.flashsale.demo.LoadResult;
import io.github.redislock.samples.flashsale.demo.PurchaseLoad;

import static org.assertj.core.api.Assertions.assertThat;

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
