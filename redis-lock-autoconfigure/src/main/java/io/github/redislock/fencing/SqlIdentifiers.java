package io.github.redislock.fencing;

import java.util.regex.Pattern;

/**
 * Checks the table and column names that {@link FencedJdbc} writes into its SQL, which
 * cannot be bound as parameters: only plain names pass, so that no name can carry SQL of
 * its own.
 *
 * @author redis-lock
 */
final class SqlIdentifiers {

	/**
	 * A plain, unquoted SQL name: a letter or underscore, then letters, digits or
	 * underscores, 128 characters at most (the shortest limit of the common databases).
	 */
	private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");

	/** A table name, optionally qualified by its schema (and catalog). */
	private static final Pattern TABLE = Pattern.compile(NAME + "(\\." + NAME + "){0,2}");

	private SqlIdentifiers() {
	}

	/**
	 * Return the table name when it is a plain name, optionally qualified.
	 * @throws IllegalArgumentException when it is not
	 */
	static String table(String name) {
		return check(TABLE, name, "table");
	}

	/**
	 * Return the column name when it is a plain name.
	 * @throws IllegalArgumentException when it is not
	 */
	static String column(String name, String role) {
		return check(NAME, name, role);
	}

	private static String check(Pattern pattern, String name, String role) {
		if (!pattern.matcher(name).matches()) {
			throw new IllegalArgumentException("'" + name + "' is not a valid " + role + " name: use letters, digits "
					+ "and underscores, starting with a letter or underscore (unquoted), so that no name can "
					+ "change the SQL; write the fenced UPDATE yourself for other names");
		}
		return name;
	}

}
