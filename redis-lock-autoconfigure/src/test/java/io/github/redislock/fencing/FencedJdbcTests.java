package io.github.redislock.fencing;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.dao.EmptyResultDataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import io.github.redislock.StaleFencingTokenException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link FencedJdbc} on a real database: PostgreSQL, MariaDB or H2, whichever
 * {@link TestDatabase} finds. Each run creates tables of its own and drops them.
 */
class FencedJdbcTests {

	private static final Log logger = LogFactory.getLog(FencedJdbcTests.class);

	private static final String RUN = Long.toString(System.nanoTime(), 36);

	/** Rows with id, stock, written_by, and the fence column {@code fence}. */
	private static final String PRODUCT = "fenced_product_" + RUN;

	/** Rows with sku, quantity, and the fence column {@code lock_token}. */
	private static final String ITEM = "fenced_item_" + RUN;

	private static TestDatabase database;

	private static SingleConnectionDataSource dataSource;

	private static JdbcClient jdbc;

	private FencedJdbc fenced;

	@BeforeAll
	static void createTables() {
		database = TestDatabase.pick();
		dataSource = database.dataSource();
		jdbc = JdbcClient.create(dataSource);
		jdbc.sql("CREATE TABLE " + PRODUCT + " (id BIGINT PRIMARY KEY, stock INT NOT NULL, written_by VARCHAR(100), "
				+ "fence BIGINT NOT NULL DEFAULT 0)")
			.update();
		jdbc.sql("CREATE TABLE " + ITEM
				+ " (sku VARCHAR(32) PRIMARY KEY, quantity INT NOT NULL, lock_token BIGINT NOT NULL DEFAULT 0)")
			.update();
	}

	@AfterAll
	static void dropTables() {
		if (jdbc != null) {
			jdbc.sql("DROP TABLE IF EXISTS " + PRODUCT).update();
			jdbc.sql("DROP TABLE IF EXISTS " + ITEM).update();
			dataSource.destroy();
		}
	}

	@BeforeEach
	void insertRows() {
		jdbc.sql("DELETE FROM " + PRODUCT).update();
		for (long id = 1; id <= 4; id++) {
			jdbc.sql("INSERT INTO " + PRODUCT + " (id, stock) VALUES (?, 10)").param(id).update();
		}
		this.fenced = new FencedJdbc(jdbc);
	}

	@Test
	void higherTokenUpdatesTheRowAndRaisesItsFence() {
		this.fenced.update(PRODUCT, 1L, Map.of("stock", 9, "written_by", "first"), 5);
		this.fenced.update(PRODUCT, 1L, Map.of("stock", 8), 7);
		assertThat(row(1)).containsEntry("stock", 8L).containsEntry("written_by", "first").containsEntry("fence", 7L);
	}

	@Test
	void lowerTokenIsRefusedWithTheStoredTokenAndWritesNothing() {
		this.fenced.update(PRODUCT, 1L, Map.of("stock", 9), 7);
		assertThatExceptionOfType(StaleFencingTokenException.class)
			.isThrownBy(() -> this.fenced.update(PRODUCT, 1L, Map.of("stock", 1), 5))
			.satisfies((ex) -> {
				assertThat(ex.getResource()).isEqualTo(PRODUCT + "[id=1]");
				assertThat(ex.getToken()).isEqualTo(5);
				assertThat(ex.getHighestToken()).isEqualTo(7);
			});
		assertThat(row(1)).containsEntry("stock", 9L).containsEntry("fence", 7L);
	}

	@Test
	void equalTokenIsTheSameHolderWritingAgain() {
		this.fenced.update(PRODUCT, 1L, Map.of("stock", 9), 7);
		this.fenced.update(PRODUCT, 1L, Map.of("stock", 8), 7);
		assertThat(row(1)).containsEntry("stock", 8L);
	}

	@Test
	void missingRowIsNotStale() {
		assertThatExceptionOfType(EmptyResultDataAccessException.class)
			.isThrownBy(() -> this.fenced.update(PRODUCT, 99L, Map.of("stock", 1), 5))
			.withMessageContaining("id = 99")
			.withMessageContaining("insert the row");
	}

	@Test
	void noValuesRaisesTheFenceOnly() {
		this.fenced.update(PRODUCT, 1L, Map.of(), 5);
		assertThat(row(1)).containsEntry("stock", 10L).containsEntry("fence", 5L);
	}

	@Test
	void qualifiedTableNameIsAccepted() {
		this.fenced.update(database.schema() + "." + PRODUCT, 1L, Map.of("stock", 9), 5);
		assertThat(row(1)).containsEntry("stock", 9L);
	}

	@Test
	void idAndFenceColumnsMayBeNamed() {
		jdbc.sql("DELETE FROM " + ITEM).update();
		jdbc.sql("INSERT INTO " + ITEM + " (sku, quantity) VALUES ('A-1', 3)").update();
		FencedJdbc fenced = new FencedJdbc(jdbc, "sku", "lock_token");
		fenced.update(ITEM, "A-1", Map.of("quantity", 2), 7);
		assertThatExceptionOfType(StaleFencingTokenException.class)
			.isThrownBy(() -> fenced.update(ITEM, "A-1", Map.of("quantity", 1), 6))
			.satisfies((ex) -> assertThat(ex.getHighestToken()).isEqualTo(7));
		assertThat(jdbc.sql("SELECT quantity FROM " + ITEM).query(Integer.class).single()).isEqualTo(2);
	}

	@Test
	void worksOnAJdbcTemplate() {
		FencedJdbc fenced = new FencedJdbc(new JdbcTemplate(dataSource));
		fenced.update(PRODUCT, 1L, Map.of("stock", 9), 5);
		assertThatExceptionOfType(StaleFencingTokenException.class)
			.isThrownBy(() -> fenced.update(PRODUCT, 1L, Map.of("stock", 1), 4));
	}

	@ParameterizedTest
	@ValueSource(strings = { "product; DROP TABLE x", "product--", "\"product\"", "1product", "a.b.c.d", "product ",
			"pro duct", "" })
	void tableNameThatIsNotPlainIsRejected(String table) {
		assertThatIllegalArgumentException().isThrownBy(() -> this.fenced.update(table, 1L, Map.of("stock", 1), 5))
			.withMessageContaining("not a valid table name");
	}

	@ParameterizedTest
	@ValueSource(strings = { "stock = 0, fence", "stock--", "stock)", "st'ock", "stock/**/" })
	void columnNameThatIsNotPlainIsRejected(String column) {
		assertThatIllegalArgumentException().isThrownBy(() -> this.fenced.update(PRODUCT, 1L, Map.of(column, 1), 5))
			.withMessageContaining("not a valid column name");
		assertThat(row(1)).containsEntry("stock", 10L).containsEntry("fence", 0L);
	}

	@Test
	void idAndFenceColumnNamesAreChecked() {
		assertThatIllegalArgumentException().isThrownBy(() -> new FencedJdbc(jdbc, "id = id OR 1", "fence"))
			.withMessageContaining("not a valid id column name");
		assertThatIllegalArgumentException().isThrownBy(() -> new FencedJdbc(jdbc, "id", "fence; --"))
			.withMessageContaining("not a valid fence column name");
		assertThatIllegalArgumentException().isThrownBy(() -> new FencedJdbc(jdbc, "id", "ID"));
	}

	@Test
	void valuesMustNotSetTheIdOrFenceColumn() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.fenced.update(PRODUCT, 1L, Map.of("FENCE", 99), 5))
			.withMessageContaining("FENCE");
		assertThatIllegalArgumentException().isThrownBy(() -> this.fenced.update(PRODUCT, 1L, Map.of("id", 2), 5));
		assertThat(row(1)).containsEntry("fence", 0L);
	}

	@Test
	void negativeTokenIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.fenced.update(PRODUCT, 1L, Map.of("stock", 1), -1));
	}

	/**
	 * A stale holder whose transaction read the row before the newer holder wrote it:
	 * under REPEATABLE READ its snapshot shows the old fence, yet the write is refused.
	 * MariaDB lets the update run and find no row to update, which must be told as stale,
	 * not missing, though the snapshot shows a fence lower than the token; PostgreSQL and
	 * H2 refuse the update itself with a serialization failure.
	 */
	@Test
	void staleWriteInARepeatableReadTransactionIsRefused() {
		TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
		transaction.setIsolationLevel(TransactionDefinition.ISOLATION_REPEATABLE_READ);
		SingleConnectionDataSource newerHolder = database.dataSource();
		FencedJdbc newer = new FencedJdbc(JdbcClient.create(newerHolder));
		assertThatException().isThrownBy(() -> transaction.executeWithoutResult((status) -> {
			assertThat(row(1)).containsEntry("fence", 0L);
			newer.update(PRODUCT, 1L, Map.of("stock", 7), 9);
			this.fenced.update(PRODUCT, 1L, Map.of("stock", 1), 5);
		})).satisfies((ex) -> {
			logger.info("A stale write in a REPEATABLE READ transaction on " + database.name() + " threw " + ex);
			assertThat(ex).isInstanceOfAny(StaleFencingTokenException.class, ConcurrencyFailureException.class);
			if (database.name().equals("mariadb")) {
				assertThat(ex).isInstanceOfSatisfying(StaleFencingTokenException.class,
						(stale) -> assertThat(stale.getHighestToken()).isEqualTo(9));
			}
		});
		newerHolder.destroy();
		assertThat(row(1)).containsEntry("stock", 7L).containsEntry("fence", 9L);
	}

	@Test
	void concurrentStaleAndFreshUpdatesKeepTheHighestTokensValue() throws Exception {
		long seed = Long.getLong(FencedWriteFuzz.SEED_PROPERTY, System.nanoTime());
		logger.info("Fenced updates on " + database.name() + " with seed " + seed);
		List<String> violations = new FencedUpdateFuzz(database, PRODUCT, List.of(1L, 2L, 3L), seed).run();
		assertThat(violations)
			.as("violations on %s with seed %d (repeat with -D%s=%d -D%s=%s)", database.name(), seed,
					FencedWriteFuzz.SEED_PROPERTY, seed, TestDatabase.PROPERTY, database.name())
			.isEmpty();
	}

	private static Map<String, Object> row(long id) {
		return jdbc.sql("SELECT stock, written_by, fence FROM " + PRODUCT + " WHERE id = ?")
			.param(id)
			.query((rs, rowNum) -> {
				Map<String, Object> row = new HashMap<>();
				row.put("stock", rs.getLong("stock"));
				row.put("written_by", rs.getString("written_by"));
				row.put("fence", rs.getLong("fence"));
				return row;
			})
			.single();
	}

}
