package io.github.redislock.fencing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

import io.github.redislock.StaleFencingTokenException;

/**
 * Threads update a few rows with fencing tokens from a {@link FencingHistory}, most of
 * them stale or overtaken, while a reader watches the rows. Besides the history's rules:
 * the reader sees each row's fence equal the token its {@code written_by} column starts
 * with (both are written by one statement), and never decrease.
 */
final class FencedUpdateFuzz {

	private static final Log logger = LogFactory.getLog(FencedUpdateFuzz.class);

	private static final int THREADS = 8;

	private static final int UPDATES_PER_THREAD = 100;

	private final TestDatabase database;

	private final String table;

	private final List<Long> ids;

	private final FencingHistory history;

	FencedUpdateFuzz(TestDatabase database, String table, List<Long> ids, long seed) {
		this.database = database;
		this.table = table;
		this.ids = ids;
		this.history = new FencingHistory(seed);
	}

	/**
	 * Run the writers and the reader, then check the rows.
	 * @return the violations found, empty when none
	 */
	List<String> run() throws Exception {
		List<SingleConnectionDataSource> connections = new ArrayList<>();
		for (int i = 0; i <= THREADS; i++) {
			connections.add(this.database.dataSource());
		}
		WritersAndReader.run(THREADS,
				(index) -> write(this.history.writer(index), new FencedJdbc(JdbcClient.create(connections.get(index)))),
				(writing) -> read(JdbcClient.create(connections.get(THREADS)), writing), Duration.ofSeconds(120));
		JdbcClient jdbc = JdbcClient.create(connections.get(THREADS));
		for (long id : this.ids) {
			Map<String, Object> row = row(jdbc, id);
			this.history.checkEnd(resource(id), String.valueOf(row.get("fence")), (String) row.get("written_by"));
		}
		connections.forEach(SingleConnectionDataSource::destroy);
		logger.info(String.format("%d fenced updates, %d accepted", THREADS * UPDATES_PER_THREAD,
				this.history.acceptedWrites()));
		return this.history.violations();
	}

	private void write(FencingHistory.Writer writer, FencedJdbc fenced) {
		for (int i = 0; i < UPDATES_PER_THREAD; i++) {
			long id = this.ids.get(writer.nextIndex(this.ids.size()));
			long token = writer.nextToken(resource(id));
			String value = token + "/" + Thread.currentThread().getName() + "/" + i;
			try {
				fenced.update(this.table, id, Map.of("written_by", value), token);
				writer.accepted(resource(id), token);
			}
			catch (StaleFencingTokenException ex) {
				writer.refused(resource(id), token, ex, this.table + "[id=" + id + "]");
			}
		}
	}

	private void read(JdbcClient jdbc, BooleanSupplier writing) {
		Map<Long, Long> last = new HashMap<>();
		do {
			for (long id : this.ids) {
				Map<String, Object> row = row(jdbc, id);
				String value = (String) row.get("written_by");
				long fence = ((Number) row.get("fence")).longValue();
				if (value == null) {
					continue;
				}
				long token = Long.parseLong(value.substring(0, value.indexOf('/')));
				if (token != fence || fence < last.getOrDefault(id, 0L)) {
					this.history.violate("reader: row %d holds %s with fence %d, after fence %d", id, value, fence,
							last.getOrDefault(id, 0L));
				}
				last.put(id, fence);
			}
		}
		while (writing.getAsBoolean());
	}

	private Map<String, Object> row(JdbcClient jdbc, long id) {
		Map<String, Object> row = new HashMap<>();
		jdbc.sql("SELECT written_by, fence FROM " + this.table + " WHERE id = ?").param(id).query((rs) -> {
			row.put("written_by", rs.getString(1));
			row.put("fence", rs.getLong(2));
		});
		return row;
	}

	private static String resource(long id) {
		return "row " + id;
	}

}
