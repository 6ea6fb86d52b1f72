package io.github.redislock.samples.flashsale;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The scheduled sales report run by two instances of the application on one Redis, both
 * firing every second.
 */
@ExtendWith(OutputCaptureExtension.class)
class SalesReportTests {

	private static final Pattern RUN = Pattern.compile("Sales report at (\\S+) by instance (\\S+):");

	@Test
	void eachPeriodIsReportedByOneInstanceOnly(CapturedOutput output) {
		try (RedisServer redis = RedisServer.start();
				ConfigurableApplicationContext first = start("A", redis);
				ConfigurableApplicationContext second = start("B", redis)) {
			// Both instances must fire in the periods counted: with one of them silent,
			// nothing would compete for the report and no lock would be needed.
			await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
				assertThat(periods(output)).hasSizeGreaterThanOrEqualTo(4);
				assertThat(attempts(first)).as("attempts by instance A").isGreaterThanOrEqualTo(4);
				assertThat(attempts(second)).as("attempts by instance B").isGreaterThanOrEqualTo(4);
			});
		}
		List<String> periods = periods(output);
		assertThat(periods).doesNotHaveDuplicates();
	}

	private static ConfigurableApplicationContext start(String name, RedisServer redis) {
		return new SpringApplicationBuilder(FlashSaleApplication.class).web(WebApplicationType.NONE)
			.run("--spring.data.redis.host=" + redis.host(), "--spring.data.redis.port=" + redis.port(),
					"--flash-sale.instance-name=" + name, "--flash-sale.report-cron=* * * * * *",
					"--spring.main.banner-mode=off");
	}

	/**
	 * How often the instance asked for the report's lock, whether it got it or skipped,
	 * as its {@code redis.lock.acquire} metric counts under the name of the locked
	 * method.
	 */
	private static long attempts(ConfigurableApplicationContext instance) {
		return instance.getBean(MeterRegistry.class)
			.find("redis.lock.acquire")
			.tag("lock.name", "SalesReport.report")
			.timers()
			.stream()
			.mapToLong(Timer::count)
			.sum();
	}

	private static List<String> periods(CapturedOutput output) {
		List<String> periods = new ArrayList<>();
		Matcher matcher = RUN.matcher(output.getOut());
		while (matcher.find()) {
			periods.add(matcher.group(1));
		}
		return periods;
	}

}
