package io.github.redislock.samples.flashsale;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The payment service's limit held across two instances of the application on one Redis,
 * each calling it from several threads at once, and the meter that checks it.
 */
class PaymentGatewayTests {

	private static final int LIMIT = FlashSaleProperties.Payment.DEFAULT_MAX_CONCURRENT;

	private static final int THREADS_PER_INSTANCE = 6;

	private static final int CHARGES_PER_THREAD = 5;

	private static ConfigurableApplicationContext first;

	private static ConfigurableApplicationContext second;

	@BeforeAll
	static void startInstances() {
		first = start("A");
		second = start("B");
	}

	@AfterAll
	static void stopInstances() {
		second.close();
		first.close();
	}

	@BeforeEach
	void resetPeak() {
		assertThat(meter().inFlight()).isZero();
		meter().resetPeak();
	}

	@Test
	void paymentsFromTwoInstancesNeverRunMoreThanTheLimitAtOnce() throws Exception {
		List<PaymentGateway> gateways = List.of(first.getBean(PaymentGateway.class),
				second.getBean(PaymentGateway.class));
		int threads = gateways.size() * THREADS_PER_INSTANCE;
		ExecutorService callers = Executors.newFixedThreadPool(threads);
		try {
			// Every caller starts at once, so that they compete for the permits
			CountDownLatch start = new CountDownLatch(1);
			List<Future<?>> calls = new ArrayList<>();
			for (int i = 0; i < threads; i++) {
				PaymentGateway gateway = gateways.get(i % gateways.size());
				calls.add(callers.submit(() -> {
					start.await();
					for (int charge = 0; charge < CHARGES_PER_THREAD; charge++) {
						gateway.charge("1");
					}
					return null;
				}));
			}
			start.countDown();
			for (Future<?> call : calls) {
				call.get(30, TimeUnit.SECONDS);
			}
		}
		finally {
			callers.shutdownNow();
		}
		assertThat(meter().inFlight()).isZero();
		// At most the limit, and more than one: the permits let payments overlap, from
		// either instance, rather than taking turns as a lock would
		assertThat(meter().peak()).isLessThanOrEqualTo(LIMIT).isGreaterThan(1);
	}

	@Test
	void meterCountsThePaymentsRunningAtOnceAndTheirPeak() {
		PaymentMeter meter = meter();
		PaymentMeter other = second.getBean(PaymentMeter.class);
		assertThat(meter.enter()).isEqualTo(1);
		assertThat(other.enter()).isEqualTo(2);
		meter.exit();
		assertThat(other.enter()).isEqualTo(2);
		other.exit();
		other.exit();
		assertThat(meter.inFlight()).isZero();
		assertThat(meter.peak()).isEqualTo(2);
		meter.resetPeak();
		assertThat(other.peak()).isZero();
	}

	private static PaymentMeter meter() {
		return first.getBean(PaymentMeter.class);
	}

	private static ConfigurableApplicationContext start(String name) {
		return new SpringApplicationBuilder(FlashSaleApplication.class).web(WebApplicationType.NONE)
			.run("--spring.data.redis.host=" + TestRedis.server.host(),
					"--spring.data.redis.port=" + TestRedis.server.port(), "--flash-sale.instance-name=" + name,
					"--flash-sale.report-cron=-", "--spring.main.banner-mode=off");
	}

}
