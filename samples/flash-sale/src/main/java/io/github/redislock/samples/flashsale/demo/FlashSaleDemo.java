package io.github.redislock.samples.flashsale.demo;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

import io.github.redislock.samples.flashsale.FlashSaleApplication;
import io.github.redislock.test.RedisServer;

/**
 * The demo behind {@code --demo}: starts a Redis and two instances of the sample in two
 * JVMs, sends the same burst of concurrent purchases to both, first without the lock,
 * then with it, then with it and a payment for each sale through a payment service that
 * allows {@code flash-sale.payment.max-concurrent} calls at once, then pauses the
 * instance holding the lock past its lease ({@link PausedHolderRound}), with plain and
 * with fenced writes, prints a table of the outcome and stops everything it started.
 *
 * <p>
 * The instances run with {@code redis-lock.lease-time=2s}, a fixed lease that the pause
 * outlives, and {@code flash-sale.demo-hooks=true}, which lets the demo hold a purchase
 * between its read and its write.
 *
 * <p>
 * {@value #AOT_ARGUMENT} starts the instances in AOT mode
 * ({@code -Dspring.aot.enabled=true}) on the classes that {@code spring-boot:process-aot}
 * generated, which the application jar holds. {@code --purchases=N} sends N purchases a
 * round rather than 2,000 (the stock is a twentieth of them). The other
 * {@code --name=value} arguments are passed on to both instances, so
 * {@code --flash-sale.think-time=20ms} changes their think time. When they include
 * {@code --spring.data.redis.host} or {@code --spring.data.redis.port}, the instances use
 * that Redis and the demo starts none.
 *
 * @author redis-lock
 */
public final class FlashSaleDemo {

	/** The argument that runs the demo instead of the application. */
	public static final String ARGUMENT = "--demo";

	/**
	 * The argument that starts the instances on their ahead-of-time processed classes.
	 */
	public static final String AOT_ARGUMENT = "--aot";

	private static final String PURCHASES_ARGUMENT = "--purchases=";

	private static final int DEFAULT_PURCHASES = 2000;

	/**
	 * Shown in an instance's log when it started on the classes generated ahead of time.
	 */
	private static final String AOT_STARTED = "Starting AOT-processed";

	private static final String AOT_INITIALIZER = FlashSaleApplication.class.getName()
			+ "__ApplicationContextInitializer";

	private static final int CONCURRENCY = 64;

	private static final String PRODUCT = "1";

	private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

	private static final String REPORT_CRON = "flash-sale.report-cron";

	private static final String LEASE_TIME = "redis-lock.lease-time";

	private static final String MAX_PAYMENTS = "flash-sale.payment.max-concurrent";

	private final PrintStream out = System.out;

	private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

	private final Map<String, String> properties;

	private final boolean aot;

	private final int purchases;

	private final int stock;

	private final List<SampleInstance> instances = new CopyOnWriteArrayList<>();

	private volatile @Nullable RedisServer redis;

	private FlashSaleDemo(Map<String, String> properties, boolean aot, int purchases) {
		this.properties = properties;
		this.aot = aot;
		this.purchases = purchases;
		this.stock = Math.max(1, purchases / 20);
	}

	/**
	 * Prepare the demo for the given command line arguments.
	 * @param args the arguments, as {@link #run(String[])} takes them
	 * @return the demo, not started
	 * @throws IllegalArgumentException when {@code --purchases} is not a positive number
	 */
	static FlashSaleDemo of(String[] args) {
		int purchases = DEFAULT_PURCHASES;
		for (String arg : args) {
			if (arg.startsWith(PURCHASES_ARGUMENT)) {
				String value = arg.substring(PURCHASES_ARGUMENT.length());
				purchases = value.matches("\\d{1,9}") ? Integer.parseInt(value) : 0;
				if (purchases <= 0) {
					throw new IllegalArgumentException(
							arg + ": give a positive number of purchases, such as " + PURCHASES_ARGUMENT + "400");
				}
			}
		}
		return new FlashSaleDemo(properties(args), Arrays.asList(args).contains(AOT_ARGUMENT), purchases);
	}

	/**
	 * Run the demo.
	 * @param args the command line arguments, {@code --demo} among them
	 * @return the exit status: {@code 0} when neither the locked nor the fenced purchases
	 * oversold
	 */
	public static int run(String[] args) {
		FlashSaleDemo demo = of(args);
		// On Ctrl-C, leave no JVM behind (the Redis has a hook of its own)
		Runtime.getRuntime().addShutdownHook(new Thread(demo::kill, "flash-sale-demo-cleanup"));
		long start = System.nanoTime();
		try {
			return demo.run().passed() ? 0 : 1;
		}
		catch (Exception ex) {
			demo.out.println();
			demo.out.println("The demo failed: " + ex.getMessage());
			return 1;
		}
		finally {
			demo.stop();
			demo.out.printf("%nStopped everything the demo started (%.0f s in all).%n",
					(System.nanoTime() - start) / 1e9);
		}
	}

	private static Map<String, String> properties(String[] args) {
		Map<String, String> properties = new LinkedHashMap<>();
		for (String arg : args) {
			int equals = arg.indexOf('=');
			if (arg.startsWith("--") && equals > 2 && !arg.startsWith(PURCHASES_ARGUMENT)) {
				properties.put(arg.substring(2, equals), arg.substring(equals + 1));
			}
		}
		// The instances use the demo's Redis, or the one given: never one of their own
		properties.putIfAbsent("flash-sale.embedded-redis", "never");
		// Often enough to see that one instance runs each report while the demo runs
		properties.putIfAbsent(REPORT_CRON, "*/2 * * * * *");
		// A fixed lease, no watchdog: the paused holder's lock expires 2 s after it was
		// taken, rather than a watchdog lease (30 s) after the pause began
		properties.putIfAbsent(LEASE_TIME, "2s");
		// Given to the instances rather than left to their default, to name it in the
		// demo's introduction
		properties.putIfAbsent(MAX_PAYMENTS, "3");
		properties.put("flash-sale.demo-hooks", "true");
		return properties;
	}

	/**
	 * Run the rounds and print their table; {@link #stop()} stops what they started.
	 * @return what came of the rounds
	 * @throws IllegalStateException when an instance does not start, or not in AOT mode
	 * when asked to
	 */
	DemoResult run() throws IOException, InterruptedException {
		this.out.printf("redis-lock flash-sale demo: %,d purchases of a product with %d in stock, %d at a time,%n"
				+ "spread over two instances of the application, first without the lock, then with it, then%n"
				+ "with it and a payment for each sale, at most %s at once across the instances; then the%n"
				+ "instance holding the lock is paused past its lease (%d in stock), without and with fencing.%n%n",
				this.purchases, this.stock, CONCURRENCY, this.properties.get(MAX_PAYMENTS), PausedHolderRound.STOCK);
		checkAotClasses();
		this.out.println("  Redis      " + startRedis());
		Path logs = Files.createTempDirectory("flash-sale-demo-");
		long starting = System.nanoTime();
		this.out.print("  Instances  starting A and B, a JVM each ...");
		for (String name : List.of("A", "B")) {
			this.instances.add(SampleInstance.start(name, this.properties, this.aot, logs));
		}
		for (SampleInstance instance : this.instances) {
			instance.awaitReady(this.client, START_TIMEOUT);
			if (this.aot && !instance.log().contains(AOT_STARTED)) {
				throw new IllegalStateException("Instance " + instance.name() + " did not start in AOT mode");
			}
		}
		this.out.printf("\r  Instances  A at %s and B at %s, a JVM each%s, ready in %.1f s%n", uri(0), uri(1),
				this.aot ? " in AOT mode" : "", (System.nanoTime() - starting) / 1e9);
		this.out.println("  Logs       " + logs);
		this.out.println("  Locks      " + LEASE_TIME + "=" + this.properties.get(LEASE_TIME)
				+ ": a fixed lease, not renewed by the watchdog");
		this.out.println();
		PurchaseLoad load = new PurchaseLoad(List.of(uri(0), uri(1)), CONCURRENCY);
		warmUp(load);
		LoadResult unsafe = round(load, "unsafe", "/purchase-unsafe");
		LoadResult locked = round(load, "locked", "/purchase");
		PaidResult paid = paidRound(load);
		PausedHolderRound pause = new PausedHolderRound(this.out, this.client, this.instances.get(0),
				this.instances.get(1));
		PausedHolderResult paused = pause.run("paused", "/purchase");
		PausedHolderResult fenced = pause.run("fenced", "/purchase-fenced");
		this.out.println();
		ResultTable.print(this.out, this.stock, unsafe, locked, paid, paused, fenced, this.properties.get(LEASE_TIME));
		this.out.println();
		SalesReportRuns reports = SalesReportRuns.of(this.instances.stream().map(SampleInstance::log).toList());
		this.out.println("  " + reports.describe(this.properties.get(REPORT_CRON)));
		return new DemoResult(this.stock, unsafe, locked, paid, paused, fenced);
	}

	private void checkAotClasses() {
		if (this.aot && !ClassUtils.isPresent(AOT_INITIALIZER, getClass().getClassLoader())) {
			throw new IllegalStateException(AOT_ARGUMENT + " needs the classes that spring-boot:process-aot generates,"
					+ " and " + AOT_INITIALIZER + " is not on the class path. Run the demo from the jar"
					+ " (./mvnw -q -pl samples/flash-sale -am package -Dmaven.test.skip, then java -jar"
					+ " samples/flash-sale/target/flash-sale.jar --demo --aot) or with -Pdemo,aot");
		}
	}

	private String startRedis() {
		if (this.properties.containsKey("spring.data.redis.host")
				|| this.properties.containsKey("spring.data.redis.port")) {
			return this.properties.getOrDefault("spring.data.redis.host", "localhost") + ":"
					+ this.properties.getOrDefault("spring.data.redis.port", "6379") + ", as given";
		}
		RedisServer server = RedisServer.start();
		this.redis = server;
		this.properties.put("spring.data.redis.host", server.host());
		this.properties.put("spring.data.redis.port", Integer.toString(server.port()));
		return "redis-server " + server.version() + " on " + server.host() + ":" + server.port()
				+ ", started for the demo";
	}

	/**
	 * Send a few hundred purchases of another product through each endpoint first, so
	 * that neither round pays for the instances' cold start.
	 */
	private void warmUp(PurchaseLoad load) throws IOException, InterruptedException {
		int each = Math.max(1, this.purchases / 5);
		int paid = Math.max(1, each / 4);
		restock("warm-up", Math.max(1, this.purchases / 10));
		try (ProgressBar bar = new ProgressBar(this.out, "warm-up", 2 * each + paid)) {
			load.run("/products/warm-up/purchase-unsafe", each, bar::step);
			load.run("/products/warm-up/purchase", each, bar::step);
			// The rounds above sold the stock out: some again, for the payments
			restock("warm-up", Math.max(1, paid / 5));
			load.run("/products/warm-up/purchase-paid", paid, bar::step);
		}
	}

	private LoadResult round(PurchaseLoad load, String label, String endpoint)
			throws IOException, InterruptedException {
		restock(PRODUCT, this.stock);
		try (ProgressBar bar = new ProgressBar(this.out, label, this.purchases)) {
			return load.run("/products/" + PRODUCT + endpoint, this.purchases, bar::step);
		}
	}

	/**
	 * The locked round again, through {@code /purchase-paid}: each sale then calls the
	 * payment service, whose peak of payments at once is measured from a fresh start.
	 */
	private PaidResult paidRound(PurchaseLoad load) throws IOException, InterruptedException {
		send("DELETE", "/payments/peak", 204);
		LoadResult result = round(load, "paid", "/purchase-paid");
		HttpRequest request = HttpRequest.newBuilder(uri(0).resolve("/payments")).build();
		return PaidResult.of(result, this.client.send(request, BodyHandlers.ofString()).body());
	}

	private void restock(String product, int stock) throws IOException, InterruptedException {
		send("POST", "/products/" + product + "/restock?stock=" + stock, 200);
	}

	private void send(String method, String path, int expected) throws IOException, InterruptedException {
		URI uri = uri(0).resolve(path);
		int status = this.client
			.send(HttpRequest.newBuilder(uri).method(method, BodyPublishers.noBody()).build(),
					BodyHandlers.discarding())
			.statusCode();
		if (status != expected) {
			throw new IllegalStateException(
					method + " " + uri + " answered HTTP " + status + " rather than " + expected);
		}
	}

	private URI uri(int instance) {
		return this.instances.get(instance).uri();
	}

	/**
	 * Stop the instances and the Redis that {@link #run()} started.
	 */
	void stop() {
		this.instances.forEach(SampleInstance::close);
		RedisServer server = this.redis;
		if (server != null) {
			server.close();
		}
	}

	private void kill() {
		this.instances.forEach(SampleInstance::kill);
	}

}
