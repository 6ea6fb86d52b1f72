package io.github.redislock.annotation;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.PropertySource;
import org.springframework.core.annotation.AliasFor;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.DefaultTransactionStatus;

import io.github.redislock.DistributedLock;
import io.github.redislock.DistributedLock.OnFailure;
import io.github.redislock.LockHandle;
import io.github.redislock.LockMode;
import io.github.redislock.LockTemplate;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;

/**
 * A Spring Boot application with {@link DistributedLock @DistributedLock} beans, shared
 * (and cached by the Spring TestContext framework) by the integration tests. Its Redis
 * server is a bean, so it lives and dies with the context; the connection factory reaches
 * it through {@link DataRedisConnectionDetails}.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@EnableTransactionManagement
@PropertySource("classpath:io/github/redislock/annotation/locked-services.properties")
class LockedServicesConfiguration {

	@Bean(destroyMethod = "close")
	static RedisServer redisServer() {
		return RedisServer.start();
	}

	@Bean
	static DataRedisConnectionDetails redisConnectionDetails(RedisServer redisServer) {
		return new DataRedisConnectionDetails() {

			@Override
			public Standalone getStandalone() {
				return Standalone.of(redisServer.host(), redisServer.port());
			}

		};
	}

	@Bean
	LockProbe lockProbe(RedisServer redisServer, LockTemplate lockTemplate) {
		return new LockProbe(redisServer, lockTemplate);
	}

	@Bean
	TenantResolver tenantResolver() {
		return new TenantResolver();
	}

	@Bean
	KeyFormService keyFormService(LockProbe probe) {
		return new KeyFormService(probe);
	}

	@Bean
	CounterService counterService() {
		return new CounterService();
	}

	@Bean
	DocumentService documentService() {
		return new DocumentService();
	}

	@Bean
	FailureService failureService(LockProbe probe) {
		return new FailureService(probe);
	}

	@Bean
	InnerService innerService(LockProbe probe) {
		return new InnerService(probe);
	}

	@Bean
	OuterService outerService(InnerService inner, LockProbe probe) {
		return new OuterService(inner, probe);
	}

	@Bean
	AsyncService asyncService() {
		return new AsyncService();
	}

	@Bean
	Shipping shipping(LockProbe probe) {
		return new DefaultShipping(probe);
	}

	@Bean
	DataSource dataSource() {
		return new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2)
			.generateUniqueName(true)
			.addScript("classpath:io/github/redislock/annotation/schema.sql")
			.build();
	}

	@Bean
	RecordingTransactionManager transactionManager(DataSource dataSource, LockProbe probe) {
		return new RecordingTransactionManager(dataSource, probe);
	}

	@Bean
	StockService stockService(DataSource dataSource) {
		return new StockService(new JdbcTemplate(dataSource));
	}

	/**
	 * Reads which locks are held in Redis, and holds locks on a thread of its own.
	 */
	static class LockProbe {

		private final RedisServer redisServer;

		private final LockTemplate lockTemplate;

		private final ExecutorService otherThread = Executors.newSingleThreadExecutor();

		volatile Set<String> lastSeen = Set.of();

		LockProbe(RedisServer redisServer, LockTemplate lockTemplate) {
			this.redisServer = redisServer;
			this.lockTemplate = lockTemplate;
		}

		/** The names of the locks held in Redis now, by any owner. */
		Set<String> held() {
			String prefix = this.lockTemplate.options().keyPrefix() + "{";
			try (RedisCli cli = this.redisServer.cli()) {
				return cli.keys(prefix + "*")
					.stream()
					.filter((key) -> key.endsWith("}"))
					.map((key) -> key.substring(prefix.length(), key.length() - 1))
					.collect(Collectors.toSet());
			}
		}

		void record() {
			this.lastSeen = held();
		}

		/** Acquire a lock on another thread, so that this thread cannot re-enter it. */
		LockHandle holdElsewhere(String key) {
			return CompletableFuture.supplyAsync(() -> this.lockTemplate.lock(key), this.otherThread).join();
		}

		/** Whether another thread could take the lock now. */
		boolean isFreeForOthers(String key) {
			return CompletableFuture.supplyAsync(() -> this.lockTemplate.tryLock(key, Duration.ZERO).map((handle) -> {
				handle.close();
				return true;
			}).orElse(false), this.otherThread).join();
		}

		void flush() {
			try (RedisCli cli = this.redisServer.cli()) {
				cli.flushAll();
			}
		}

	}

	static class TenantResolver {

		public String current() {
			return "acme";
		}

	}

	record Order(long id, Customer customer) {

	}

	record User(String name) {

	}

	static class Customer {

		private final String name;

		Customer(String name) {
			this.name = name;
		}

		public String getName() {
			return this.name;
		}

	}

	/**
	 * A composed annotation: a lock on the order given as first argument.
	 */
	@Target(ElementType.METHOD)
	@Retention(RetentionPolicy.RUNTIME)
	@DistributedLock(key = "order:#p0", waitTime = "1s")
	@interface OrderLock {

		@AliasFor(annotation = DistributedLock.class, attribute = "waitTime")
		String waitTime() default "1s";

	}

	/** One method per key form, each recording the locks held while it runs. */
	static class KeyFormService {

		private final LockProbe probe;

		KeyFormService(LockProbe probe) {
			this.probe = probe;
		}

		@DistributedLock("product:#id")
		public void product(long id) {
			this.probe.record();
		}

		@DistributedLock(key = "order:#order.id:line:#p1")
		public void orderLine(Order order, int line) {
			this.probe.record();
		}

		@DistributedLock("customer:#order.customer.name")
		public void customer(Order order) {
			this.probe.record();
		}

		@DistributedLock("item:#a0")
		public void item(String sku) {
			this.probe.record();
		}

		@DistributedLock("call:#root.methodName")
		public void rootMethodName() {
			this.probe.record();
		}

		@DistributedLock("user:#{#user.name.toLowerCase()}")
		public void user(User user) {
			this.probe.record();
		}

		@DistributedLock("tenant:#{@tenantResolver.current()}")
		public void tenant() {
			this.probe.record();
		}

		@DistributedLock
		public void defaultKey() {
			this.probe.record();
		}

		@DistributedLock("tag###id")
		public void escaped(long id) {
			this.probe.record();
		}

		@DistributedLock({ "b:#id", "a:#id", "c:#id" })
		public void several(long id) {
			this.probe.record();
		}

		@OrderLock
		public void composed(long orderId) {
			this.probe.record();
		}

	}

	/**
	 * The overlap detector: entries that find another call inside, and a counter
	 * incremented without atomicity, which only a working lock keeps exact.
	 */
	static class CounterService {

		private final AtomicInteger inside = new AtomicInteger();

		private final AtomicInteger overlaps = new AtomicInteger();

		private volatile int unsafeCount;

		@DistributedLock(key = "counter", waitTime = "20s")
		public void increment() {
			if (this.inside.incrementAndGet() > 1) {
				this.overlaps.incrementAndGet();
			}
			int value = this.unsafeCount;
			Thread.yield();
			this.unsafeCount = value + 1;
			this.inside.decrementAndGet();
		}

		// Read through the proxy, so public: a CGLIB proxy has fields of its own.
		public int count() {
			return this.unsafeCount;
		}

		public int overlaps() {
			return this.overlaps.get();
		}

	}

	/**
	 * Read and write methods of one read/write lock per document, each running work the
	 * test passes in, with an overlap detector: a writer that finds anyone else inside,
	 * or a reader that finds a writer inside, counts a violation.
	 */
	static class DocumentService {

		private final AtomicInteger readers = new AtomicInteger();

		private final AtomicInteger writers = new AtomicInteger();

		private final AtomicInteger violations = new AtomicInteger();

		@DistributedLock(key = "doc:#id", mode = LockMode.READ, waitTime = "20s")
		public void read(long id, Runnable work) {
			this.readers.incrementAndGet();
			if (this.writers.get() > 0) {
				this.violations.incrementAndGet();
			}
			try {
				work.run();
			}
			finally {
				this.readers.decrementAndGet();
			}
		}

		@DistributedLock(key = "doc:#id", mode = LockMode.WRITE, waitTime = "20s")
		public void write(long id, Runnable work) {
			if (this.writers.incrementAndGet() > 1 || this.readers.get() > 0) {
				this.violations.incrementAndGet();
			}
			try {
				work.run();
				// Checked again on the way out: a reader let in meanwhile is inside now.
				if (this.writers.get() > 1 || this.readers.get() > 0) {
					this.violations.incrementAndGet();
				}
			}
			finally {
				this.writers.decrementAndGet();
			}
		}

		public int readersInside() {
			return this.readers.get();
		}

		public int violations() {
			return this.violations.get();
		}

		public void resetViolations() {
			this.violations.set(0);
		}

	}

	/**
	 * Methods for the failure strategies, the exception path and wait time resolution.
	 */
	static class FailureService {

		private final LockProbe probe;

		private final AtomicInteger runs = new AtomicInteger();

		FailureService(LockProbe probe) {
			this.probe = probe;
		}

		public int runs() {
			return this.runs.get();
		}

		public void resetRuns() {
			this.runs.set(0);
		}

		@DistributedLock(key = "report:#id", waitTime = "0")
		public String throwing(long id) {
			this.runs.incrementAndGet();
			return "ran";
		}

		@DistributedLock(key = "report:#id", waitTime = "${locks.short-wait}")
		public String placeholderWait(long id) {
			this.runs.incrementAndGet();
			return "ran";
		}

		@DistributedLock(key = "report:#id", waitTime = "0", onFailure = OnFailure.SKIP)
		public String skipping(long id) {
			this.runs.incrementAndGet();
			return "ran";
		}

		@DistributedLock(key = "report:#id", waitTime = "0", onFailure = OnFailure.SKIP)
		public Optional<String> skippingOptional(long id) {
			this.runs.incrementAndGet();
			return Optional.of("ran");
		}

		@DistributedLock(key = "report:#id", waitTime = "0", onFailure = OnFailure.FALLBACK,
				fallback = "reportFallback")
		public String withFallback(long id) {
			this.runs.incrementAndGet();
			return "ran";
		}

		private String reportFallback(long id) {
			return "fallback for " + id;
		}

		@DistributedLock("fail:#id")
		public void failing(long id, RuntimeException failure) {
			this.probe.record();
			throw failure;
		}

		@DistributedLock("user:#user.name")
		public void userName(User user) {
			this.runs.incrementAndGet();
		}

	}

	static class InnerService {

		private final LockProbe probe;

		InnerService(LockProbe probe) {
			this.probe = probe;
		}

		@DistributedLock("inner")
		public void inner() {
			this.probe.record();
		}

		@DistributedLock(key = "shared", waitTime = "0")
		public void reenter() {
			this.probe.record();
		}

	}

	static class OuterService {

		private final InnerService inner;

		private final LockProbe probe;

		private final List<Set<String>> heldAfterInner = new CopyOnWriteArrayList<>();

		OuterService(InnerService inner, LockProbe probe) {
			this.inner = inner;
			this.probe = probe;
		}

		public List<Set<String>> heldAfterInner() {
			return this.heldAfterInner;
		}

		@DistributedLock("outer")
		public void nested() {
			this.inner.inner();
			this.heldAfterInner.add(this.probe.held());
		}

		@DistributedLock("shared")
		public void reentrant() {
			this.inner.reenter();
			this.heldAfterInner.add(this.probe.held());
		}

		@DistributedLock("self")
		public void callsItself() {
			this.selfInvoked();
		}

		@DistributedLock(key = "self-invoked", waitTime = "0")
		public void selfInvoked() {
			this.heldAfterInner.add(this.probe.held());
		}

	}

	static class AsyncService {

		@DistributedLock("job:#id")
		public CompletableFuture<String> start(String id, CompletableFuture<String> work) {
			return work;
		}

		@DistributedLock(key = "job:#id", waitTime = "0", onFailure = OnFailure.SKIP)
		public CompletableFuture<Optional<String>> startOrSkip(String id, CompletableFuture<Optional<String>> work) {
			return work;
		}

		@DistributedLock("job:#id")
		public CompletableFuture<String> failToStart(String id) {
			throw new IllegalStateException("no executor");
		}

	}

	/** An interface whose method carries the annotation. */
	interface Shipping {

		@DistributedLock("ship:#orderId")
		void ship(long orderId);

	}

	static class DefaultShipping implements Shipping {

		private final LockProbe probe;

		DefaultShipping(LockProbe probe) {
			this.probe = probe;
		}

		@Override
		public void ship(long orderId) {
			this.probe.record();
		}

	}

	/** A transactional method that writes with JDBC under the lock. */
	static class StockService {

		private final JdbcTemplate jdbc;

		StockService(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@Transactional
		@DistributedLock("stock:#sku")
		public void reserve(String sku, RuntimeException failure) {
			this.jdbc.update("insert into reservation (sku) values (?)", sku);
			if (failure != null) {
				throw failure;
			}
		}

		public int reservations(String sku) {
			return this.jdbc.queryForObject("select count(*) from reservation where sku = ?", Integer.class, sku);
		}

	}

	/** Records each transaction step with the locks held in Redis at that moment. */
	static class RecordingTransactionManager extends DataSourceTransactionManager {

		private final LockProbe probe;

		final List<String> events = new CopyOnWriteArrayList<>();

		RecordingTransactionManager(DataSource dataSource, LockProbe probe) {
			super(dataSource);
			this.probe = probe;
		}

		@Override
		protected void doBegin(Object transaction, TransactionDefinition definition) {
			this.events.add("begin " + this.probe.held());
			super.doBegin(transaction, definition);
		}

		@Override
		protected void doCommit(DefaultTransactionStatus status) {
			super.doCommit(status);
			this.events.add("committed " + this.probe.held());
		}

		@Override
		protected void doRollback(DefaultTransactionStatus status) {
			super.doRollback(status);
			this.events.add("rolled back " + this.probe.held());
		}

	}

}
