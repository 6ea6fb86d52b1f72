package io.github.redislock.fencing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * A real database for the fenced SQL tests: PostgreSQL on 127.0.0.1:5432 (user
 * {@code postgres}, database {@code test}) when it answers, else MariaDB on
 * 127.0.0.1:3306 (user {@code root}, no password, database {@code test}), else an
 * embedded H2, so that the tests run on any machine. The system property
 * {@code redislock.test.database} ({@code postgresql}, {@code mariadb} or {@code h2})
 * picks one. Which one ran is logged.
 *
 * @param name the database's name, as the system property takes it
 * @param url its JDBC URL
 * @param schema the schema the tests' tables are created in, to qualify their names
 */
record TestDatabase(String name, String url, String schema) {

	static final String PROPERTY = "redislock.test.database";

	private static final Log logger = LogFactory.getLog(TestDatabase.class);

	private static final List<TestDatabase> CANDIDATES = List.of(
			new TestDatabase("postgresql",
					"jdbc:postgresql://127.0.0.1:5432/test?user=postgres&sslmode=disable&connectTimeout=2", "public"),
			new TestDatabase("mariadb", "jdbc:mariadb://127.0.0.1:3306/test?user=root&password=&connectTimeout=2000",
					"test"),
			new TestDatabase("h2", "jdbc:h2:mem:fencing-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1", "PUBLIC"));

	/**
	 * The database the property names, or the first that answers.
	 * @throws IllegalStateException when the named database does not answer
	 */
	static TestDatabase pick() {
		String wanted = System.getProperty(PROPERTY);
		for (TestDatabase candidate : CANDIDATES) {
			if (wanted != null && !wanted.equals(candidate.name())) {
				continue;
			}
			try (Connection connection = DriverManager.getConnection(candidate.url())) {
				logger.info("Fenced SQL tests run on " + candidate.name() + " "
						+ connection.getMetaData().getDatabaseProductVersion());
				return candidate;
			}
			catch (SQLException ex) {
				logger.info("No " + candidate.name() + " for the fenced SQL tests: " + ex.getMessage());
			}
		}
		throw new IllegalStateException("The database " + wanted + " named by -D" + PROPERTY + " does not answer");
	}

	/**
	 * A data source of one connection, opened once and kept (opening one per statement
	 * costs more than the statement): for one thread at a time, closed with
	 * {@link SingleConnectionDataSource#destroy()}.
	 */
	SingleConnectionDataSource dataSource() {
		return new SingleConnectionDataSource(this.url, true);
	}

}
