package io.github.redislock.webflux;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.reactor.netty.NettyWebServer;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.web.server.reactive.context.ReactiveWebServerApplicationContext;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.context.ApplicationContext;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;

import io.github.redislock.LockOperations;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A WebFlux application on Reactor Netty sells a flash sale's stock to concurrent HTTP
 * requests: under the lock, taken through {@code ReactiveLockOperations} or by
 * {@code @DistributedLock} on a method returning {@code Mono}, exactly the stock is sold
 * and every other request is told "sold out"; without it, the same purchase sells items
 * that do not exist, which shows that the run can catch a lock that does not exclude.
 */
@SpringBootTest(classes = FlashSaleWebApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.main.web-application-type=reactive", "spring.data.redis.repositories.enabled=false",
				"spring.data.redis.timeout=10s" })
@AutoConfigureWebTestClient
class WebFluxFlashSaleTests {

	private static final int STOCK = 100;

	private static final int REQUESTS = 300;

	/** Requests in flight at once, each on its own connection. */
	private static final int CONCURRENCY = 64;

	private static final Duration RUN_TIMEOUT = Duration.ofSeconds(60);

	@Autowired
	private WebTestClient boundClient;

	@Autowired
	private ReactiveInventory inventory;

	@Autowired
	private LockOperations lockOperations;

	@Autowired
	private ApplicationContext context;

	private ConnectionProvider connections;

	private Scheduler buyers;

	private WebTestClient client;

	@BeforeEach
	void setUp() {
		// Reactor Netty's shared pool queues at most twice its connections, fewer than
		// the requests in flight here on a small machine
		this.connections = ConnectionProvider.builder("flash-sale-buyers")
			.maxConnections(CONCURRENCY)
			.pendingAcquireMaxCount(-1)
			.build();
		this.client = this.boundClient.mutate()
			.clientConnector(new ReactorClientHttpConnector(HttpClient.create(this.connections)))
			.responseTimeout(RUN_TIMEOUT)
			.build();
		// WebTestClient's exchange() waits for the response: one buyer thread per
		// request in flight
		this.buyers = Schedulers.newBoundedElastic(CONCURRENCY, REQUESTS, "flash-sale-buyers");
	}

	@AfterEach
	void tearDown() {
		this.buyers.dispose();
		this.connections.dispose();
	}

	@Test
	void runsOnReactorNetty() {
		assertThat(this.context).isInstanceOf(ReactiveWebServerApplicationContext.class);
		assertThat(((ReactiveWebServerApplicationContext) this.context).getWebServer())
			.isInstanceOf(NettyWebServer.class);
	}

	@Test
	void purchasesUnderReactiveLockOperationsSellTheStockExactly() {
		assertSoldExactlyTheStock(sell("/items/{item}/purchase", "template"), "template");
	}

	@Test
	void purchasesUnderDistributedLockOnAMonoMethodSellTheStockExactly() {
		assertSoldExactlyTheStock(sell("/items/{item}/purchase-annotated", "annotated"), "annotated");
	}

	@Test
	void withoutTheLockTheSamePurchaseOversells() {
		Sale sale = sell("/items/{item}/purchase-unsafe", "unsafe");
		assertThat(sale.answered(200) + sale.answered(409)).isEqualTo(REQUESTS);
		assertThat(sale.oversold()).as("items sold that did not exist").isPositive();
		assertThat(sale.answered(200)).isEqualTo(STOCK + sale.oversold());
	}

	private void assertSoldExactlyTheStock(Sale sale, String item) {
		assertThat(sale.answers()).as("answers by status").containsOnlyKeys(200, 409);
		assertThat(sale.answered(200)).isEqualTo(STOCK);
		assertThat(sale.answered(409)).isEqualTo(REQUESTS - STOCK);
		assertThat(sale.bodies(409)).containsOnly("sold out");
		assertThat(sale.oversold()).isZero();
		assertThat(sale.stockLeft()).isZero();
		assertThat(this.lockOperations.isLocked("stock:" + item)).isFalse();
	}

	private Sale sell(String uri, String item) {
		this.inventory.restock(item, STOCK).block(RUN_TIMEOUT);
		long start = System.nanoTime();
		List<EntityExchangeResult<String>> results = Flux.range(0, REQUESTS)
			.flatMap((request) -> Mono.fromCallable(() -> purchase(uri, item)).subscribeOn(this.buyers), CONCURRENCY)
			.collectList()
			.block(RUN_TIMEOUT);
		long sold = this.inventory.sold(item).block(RUN_TIMEOUT);
		long stockLeft = this.inventory.stock(item).block(RUN_TIMEOUT);
		Sale sale = new Sale(results, sold - STOCK, stockLeft);
		System.out.printf("%s: %d requests in %d ms, answers %s, oversold %d%n", uri, REQUESTS,
				Duration.ofNanos(System.nanoTime() - start).toMillis(), sale.answers(), sale.oversold());
		return sale;
	}

	private EntityExchangeResult<String> purchase(String uri, String item) {
		return this.client.post().uri(uri, item).exchange().expectBody(String.class).returnResult();
	}

	/**
	 * The answers of one run and what Redis holds after it.
	 *
	 * @param results every request's answer
	 * @param oversold items sold beyond the stock
	 * @param stockLeft the stock as Redis reads after the run
	 */
	private record Sale(List<EntityExchangeResult<String>> results, long oversold, long stockLeft) {

		Map<Integer, Long> answers() {
			return this.results.stream()
				.collect(Collectors.groupingBy((result) -> result.getStatus().value(), Collectors.counting()));
		}

		long answered(int status) {
			return answers().getOrDefault(status, 0L);
		}

		List<String> bodies(int status) {
			return this.results.stream()
				.filter((result) -> result.getStatus().value() == status)
				.map(EntityExchangeResult::getResponseBody)
				.toList();
		}

	}

}
