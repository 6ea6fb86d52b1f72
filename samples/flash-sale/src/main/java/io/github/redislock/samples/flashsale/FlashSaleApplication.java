package io.github.redislock.samples.flashsale;

import java.util.Arrays;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.scheduling.annotation.EnableScheduling;

import io.github.redislock.samples.flashsale.demo.FlashSaleDemo;

/**
 * A web shop that sells products with scarce stock held in Redis, from as many instances
 * as you start. With {@code --demo} it runs {@link FlashSaleDemo the demo} instead: two
 * instances in two JVMs, and thousands of purchases through them with and without the
 * lock.
 *
 * @author redis-lock
 */
@SpringBootApplication
@EnableScheduling
@EnableConfigurationProperties(FlashSaleProperties.class)
public class FlashSaleApplication {

	/**
	 * Start the application, or the demo when the arguments contain {@code --demo}.
	 * @param args the command line arguments
	 */
	public static void main(String[] args) {
		if (Arrays.asList(args).contains(FlashSaleDemo.ARGUMENT)) {
			System.exit(FlashSaleDemo.run(args));
		}
		SpringApplication.run(FlashSaleApplication.class, args);
	}

}
