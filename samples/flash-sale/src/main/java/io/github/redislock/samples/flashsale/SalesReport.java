package io.github.redislock.samples.flashsale;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.support.CronExpression;
import org.springframework.stereotype.Component;

import io.github.redislock.DistributedLock;
import io.github.redislock.DistributedLock.OnFailure;

/**
 * A scheduled sales report that every instance schedules and one instance runs per
 * period, logging its name.
 *
 * <p>
 * All instances fire at the same wall-clock seconds. The first to take the lock runs the
 * report; the others find the lock held and skip, without waiting. An instance that fires
 * a little late, after the run already released the lock, finds the period's run recorded
 * in Redis and skips too: the lock is what makes that check-then-record safe, as it makes
 * the stock's read, check and write safe in {@link Checkout}.
 *
 * @author redis-lock
 */
@Component
public class SalesReport {

	private static final Logger logger = LoggerFactory.getLogger(SalesReport.class);

	private static final String LAST_RUN_KEY = "flash-sale:sales-report:last-run";

	private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss");

	private final Inventory inventory;

	private final StringRedisTemplate redis;

	private final String instanceName;

	private final @Nullable CronExpression cron;

	/**
	 * Create the report.
	 * @param inventory the products to report on
	 * @param redis the application's Redis template, to record the last run
	 * @param properties the sample's settings, for the instance name and the cron
	 * expression
	 */
	public SalesReport(Inventory inventory, StringRedisTemplate redis, FlashSaleProperties properties) {
		this.inventory = inventory;
		this.redis = redis;
		this.instanceName = properties.getInstanceName();
		String cron = properties.getReportCron();
		this.cron = Scheduled.CRON_DISABLED.equals(cron) ? null : CronExpression.parse(cron);
	}

	/**
	 * Log the stock and sales of every product, unless another instance holds the lock or
	 * already reported in this period.
	 */
	@Scheduled(cron = "${flash-sale.report-cron:" + FlashSaleProperties.DEFAULT_REPORT_CRON + "}")
	@DistributedLock(key = "sales-report", waitTime = "0", onFailure = OnFailure.SKIP)
	public void report() {
		ZonedDateTime now = ZonedDateTime.now();
		String lastRun = this.redis.opsForValue().get(LAST_RUN_KEY);
		if (lastRun != null && this.cron != null) {
			ZonedDateTime previous = Instant.ofEpochMilli(Long.parseLong(lastRun)).atZone(ZoneId.systemDefault());
			ZonedDateTime due = this.cron.next(previous);
			if (due != null && due.isAfter(now)) {
				logger.debug("Sales report already run in this period, at {}", previous);
				return;
			}
		}
		this.redis.opsForValue().set(LAST_RUN_KEY, Long.toString(now.toInstant().toEpochMilli()));
		logger.info("Sales report at {} by instance {}: {}", TIME.format(now), this.instanceName, summary());
	}

	private String summary() {
		String products = this.inventory.productIds()
			.stream()
			.sorted()
			.flatMap((id) -> this.inventory.find(id).stream())
			.map((product) -> "product " + product.id() + ": " + product.sold() + " of " + product.restocked() + " sold"
					+ ((product.oversold() > 0) ? " (" + product.oversold() + " oversold)" : ""))
			.collect(Collectors.joining("; "));
		return products.isEmpty() ? "no products yet" : products;
	}

}
