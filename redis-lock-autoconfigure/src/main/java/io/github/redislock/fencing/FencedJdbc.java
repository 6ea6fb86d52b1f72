package io.github.redislock.fencing;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import org.springframework.dao.EmptyResultDataAccessException;
import org.springframework.dao.OptimisticLockingFailureException;
import org.springframework.jdbc.core.JdbcOperations;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.util.Assert;

import io.github.redislock.StaleFencingTokenException;

/**
 * Fenced updates of table rows through Spring's {@link JdbcClient}: a row is updated only
 * when the writer's fencing token is not lower than the highest the row has seen, kept in
 * a column of the row itself. Give the table that column:
 *
 * <pre class="code">
 * ALTER TABLE product ADD COLUMN fence BIGINT NOT NULL DEFAULT 0;
 * </pre>
 *
 * and update its rows under the lock with the lock's token:
 *
 * <pre class="code">
 * try (LockHandle lock = lockTemplate.lock("product:" + id)) {
 *     int stock = jdbcClient.sql("SELECT stock FROM product WHERE id = ?").param(id).query(Integer.class).single();
 *     fencedJdbc.update("product", id, Map.of("stock", stock - 1), lock.fencingToken());
 * }
 * </pre>
 *
 * which runs, in one statement:
 *
 * <pre class="code">
 * UPDATE product SET stock = :v0, fence = :token WHERE id = :id AND fence &lt;= :token
 * </pre>
 *
 * Zero rows updated means the row is missing or its fence is higher than the token: a
 * second query tells which, and the update throws accordingly. Code that writes its own
 * SQL follows the same pattern: set the fence column to the token, require it to be no
 * higher in the {@code WHERE} clause, and treat zero rows as stale once the row is known
 * to exist. An equal token is the same holder writing again, and is allowed.
 *
 * <p>
 * Table and column names are written into the SQL, so only plain names pass (letters,
 * digits, underscores; a table may be qualified by its schema); values are always bound
 * as parameters. The id column must identify one row, such as the primary key. Updates
 * join the caller's transaction, as the {@code JdbcClient}'s statements do. Thread-safe.
 *
 * @author redis-lock
 */
public class FencedJdbc {

	/** Name of the id column by default: {@code id}. */
	public static final String DEFAULT_ID_COLUMN = "id";

	/** Name of the fence column by default: {@code fence}. */
	public static final String DEFAULT_FENCE_COLUMN = "fence";

	/**
	 * How many times an update is tried when the row changes between the update and the
	 * query that explains why it updated nothing.
	 */
	private static final int ATTEMPTS = 3;

	private final JdbcClient jdbc;

	private final String idColumn;

	private final String fenceColumn;

	/**
	 * Create a helper for rows identified by an {@code id} column and fenced by a
	 * {@code fence} column.
	 * @param jdbcClient the client that runs the statements
	 */
	public FencedJdbc(JdbcClient jdbcClient) {
		this(jdbcClient, DEFAULT_ID_COLUMN, DEFAULT_FENCE_COLUMN);
	}

	/**
	 * Create a helper for rows identified by an {@code id} column and fenced by a
	 * {@code fence} column, for code that uses a {@code JdbcTemplate}.
	 * @param jdbcTemplate the template that runs the statements
	 */
	public FencedJdbc(JdbcOperations jdbcTemplate) {
		this(JdbcClient.create(jdbcTemplate));
	}

	/**
	 * Create a helper for rows identified and fenced by the given columns.
	 * @param jdbcClient the client that runs the statements
	 * @param idColumn the column that identifies a row, such as its primary key
	 * @param fenceColumn the {@code BIGINT NOT NULL DEFAULT 0} column that keeps the
	 * highest fencing token a row has seen
	 * @throws IllegalArgumentException when a column name is not a plain name, or both
	 * are the same
	 */
	public FencedJdbc(JdbcClient jdbcClient, String idColumn, String fenceColumn) {
		this.jdbc = jdbcClient;
		this.idColumn = SqlIdentifiers.column(idColumn, "id column");
		this.fenceColumn = SqlIdentifiers.column(fenceColumn, "fence column");
		Assert.isTrue(!idColumn.equalsIgnoreCase(fenceColumn), "The id and fence columns must differ");
	}

	/**
	 * Update a row's columns and raise its fence to the token, when the token is not
	 * lower than the row's fence.
	 * @param table the table, optionally qualified by its schema
	 * @param id the row's id
	 * @param values the new values by column name; may be empty to raise the fence only
	 * @param token the writer's fencing token, not negative
	 * @throws StaleFencingTokenException when the row's fence is higher than the token;
	 * nothing was written
	 * @throws EmptyResultDataAccessException when no row has that id
	 * @throws IllegalArgumentException when the token is negative, a name is not a plain
	 * name, or the values set the id or fence column
	 * @throws OptimisticLockingFailureException in the unlikely case that the row kept
	 * changing (inserted, or its fence lowered) while the update was tried three times
	 * @throws org.springframework.dao.DataAccessException when the database failed
	 */
	public void update(String table, Object id, Map<String, ?> values, long token) {
		Assert.isTrue(token >= 0, () -> "The fencing token must not be negative, but was " + token);
		Map<String, Object> params = new LinkedHashMap<>();
		String sql = updateStatement(SqlIdentifiers.table(table), values, params);
		params.put("token", token);
		params.put("id", id);
		for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
			if (this.jdbc.sql(sql).params(params).update() > 0) {
				return;
			}
			Optional<Long> fence = fence(table, id, false);
			if (fence.isPresent() && fence.get() <= token) {
				// Inside a transaction whose snapshot predates the winning write (MySQL's
				// and
				// MariaDB's REPEATABLE READ), a plain read sees an older fence than the
				// update
				// did; a locking read sees the latest.
				fence = fence(table, id, true);
			}
			if (fence.isEmpty()) {
				throw new EmptyResultDataAccessException("No row of " + table + " has " + this.idColumn + " = " + id
						+ "; insert the row (with " + this.fenceColumn + " = 0) before its fenced updates", 1);
			}
			if (fence.get() > token) {
				throw new StaleFencingTokenException(table + "[" + this.idColumn + "=" + id + "]", token, fence.get());
			}
		}
		throw new OptimisticLockingFailureException("The row of " + table + " with " + this.idColumn + " = " + id
				+ " changed between each fenced update and the query after it, " + ATTEMPTS + " times");
	}

	/**
	 * Write the update's SQL, naming the parameters of the values {@code v0}, {@code v1},
	 * … so that no column name can clash with {@code token} or {@code id}.
	 * @param params receives the values by parameter name
	 */
	private String updateStatement(String table, Map<String, ?> values, Map<String, Object> params) {
		StringBuilder sql = new StringBuilder("UPDATE ").append(table).append(" SET ");
		values.forEach((name, value) -> {
			SqlIdentifiers.column(name, "column");
			Assert.isTrue(!name.equalsIgnoreCase(this.fenceColumn) && !name.equalsIgnoreCase(this.idColumn),
					() -> "The values must not set the id or fence column, but set '" + name + "'");
			String param = "v" + params.size();
			sql.append(name).append(" = :").append(param).append(", ");
			params.put(param, value);
		});
		return sql.append(this.fenceColumn)
			.append(" = :token WHERE ")
			.append(this.idColumn)
			.append(" = :id AND ")
			.append(this.fenceColumn)
			.append(" <= :token")
			.toString();
	}

	private Optional<Long> fence(String table, Object id, boolean locking) {
		String sql = "SELECT " + this.fenceColumn + " FROM " + table + " WHERE " + this.idColumn + " = :id"
				+ (locking ? " FOR UPDATE" : "");
		return this.jdbc.sql(sql).param("id", id).query(Long.class).optional();
	}

}
