package io.github.redislock.annotation;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import javax.sql.DataSource;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.DefaultTransactionStatus;

import io.github.redislock.DistributedLock;

/**
 * A transactional bean that writes with JDBC under its lock, on an embedded database
 * whose transaction manager records the locks held at each step.
 */
@Configuration(proxyBeanMethods = false)
@EnableTransactionManagement
class TransactionalServicesConfiguration {

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
