package io.github.redislock.samples.flashsale;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
 * The scheduled sales report run by two instances of the application on one Redis.
 */
@ExtendWith(OutputCaptureExtension.class)
class SalesReportTests {

	private static final Pattern RUN = Pattern.compile("Sales report at (\\S+) by instance (\\S+):");

	@Test
	void eachPeriodIsReportedByOneInstanceOnly(CapturedOutput output) {
		try (RedisServer redis = RedisServer.start();
				ConfigurableApplicationContext first = start("A", redis);
				ConfigurableApplicationContext second = start("B", redis)) {
			await().atMost(Duration.ofSeconds(15)).until(() -> periods(output).size() >= 4);
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

	private static List<String> periods(CapturedOutput output) {
		List<String> periods = new ArrayList<>();
		Matcher matcher = RUN.matcher(output.getOut());
		while (matcher.find()) {
			periods.add(matcher.group(1));
		}
		return periods;
	}

}
