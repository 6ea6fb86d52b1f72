package io.github.redislock.samples.flashsale;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the flash-sale sample, under {@code flash-sale}. Whether a Redis is started
 * for the application is set by {@code flash-sale.embedded-redis}, read before these are
 * bound (see {@link io.github.redislock.samples.flashsale.embedded.EmbeddedRedis}).
 *
 * @author redis-lock
 */
@ConfigurationProperties("flash-sale")
public class FlashSaleProperties {

	/** Default cron expression of the sales report: every ten seconds. */
	public static final String DEFAULT_REPORT_CRON = "*/10 * * * * *";

	/**
	 * Pause of a purchase between reading the stock and writing it back. It stands for
	 * the payment and other calls a real checkout makes there, and widens the window in
	 * which purchases without the lock race.
	 */
	private Duration thinkTime = Duration.ofMillis(1);

	/**
	 * Name of this instance in the log, such as in the sales report. The default is made
	 * of the process id.
	 */
	private String instanceName = "pid-" + ProcessHandle.current().pid();

	/**
	 * Cron expression of the sales report, in the JVM's time zone. Every instance fires
	 * at the same wall-clock seconds and one of them runs it.
	 */
	private String reportCron = DEFAULT_REPORT_CRON;

	/**
	 * Whether the demo's endpoints that hold a purchase between its read and its write
	 * work ({@code /products/{id}/hold}, see {@code PurchaseHoldController}); otherwise
	 * they answer 404. The demo turns them on in the instances it starts.
	 */
	private boolean demoHooks;

	/**
	 * The payment service a paid purchase calls ({@link PaymentGateway}).
	 */
	private final Payment payment = new Payment();

	public Duration getThinkTime() {
		return this.thinkTime;
	}

	public void setThinkTime(Duration thinkTime) {
		this.thinkTime = thinkTime;
	}

	public String getInstanceName() {
		return this.instanceName;
	}

	public void setInstanceName(String instanceName) {
		this.instanceName = instanceName;
	}

	public String getReportCron() {
		return this.reportCron;
	}

	public void setReportCron(String reportCron) {
		this.reportCron = reportCron;
	}

	public boolean isDemoHooks() {
		return this.demoHooks;
	}

	public void setDemoHooks(boolean demoHooks) {
		this.demoHooks = demoHooks;
	}

	public Payment getPayment() {
		return this.payment;
	}

	/**
	 * Settings of the simulated payment service, under {@code flash-sale.payment}.
	 */
	public static class Payment {

		/**
		 * Default of {@link #getMaxConcurrent()}: the partner allows three calls at once.
		 */
		public static final int DEFAULT_MAX_CONCURRENT = 3;

		/**
		 * How many payments may run at once across every instance, as the payment partner
		 * allows: the limit of {@link PaymentGateway#charge(String)}, read by its
		 * annotation when the application starts. The default is 3.
		 */
		private int maxConcurrent = DEFAULT_MAX_CONCURRENT;

		/**
		 * Shortest time a payment takes; each takes a random time between this and
		 * {@code max-time}. The default is 20 ms.
		 */
		private Duration minTime = Duration.ofMillis(20);

		/**
		 * Longest time a payment takes, at least {@code min-time}. The default is 50 ms.
		 */
		private Duration maxTime = Duration.ofMillis(50);

		public int getMaxConcurrent() {
			return this.maxConcurrent;
		}

		public void setMaxConcurrent(int maxConcurrent) {
			this.maxConcurrent = maxConcurrent;
		}

		public Duration getMinTime() {
			return this.minTime;
		}

		public void setMinTime(Duration minTime) {
			this.minTime = minTime;
		}

		public Duration getMaxTime() {
			return this.maxTime;
		}

		public void setMaxTime(Duration maxTime) {
			this.maxTime = maxTime;
		}

	}

}
