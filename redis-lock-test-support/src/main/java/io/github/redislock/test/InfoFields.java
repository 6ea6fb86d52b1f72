package io.github.redislock.test;

/**
 * Reads fields from the text of an {@code INFO} reply.
 */
final class InfoFields {

	private InfoFields() {
	}

	/**
	 * Returns the value of a field in {@code INFO} text.
	 * @param info the text, lines of {@code field:value}
	 * @param field the field, for example {@code "redis_version"}
	 * @return the value, or {@code null} if the field is absent
	 */
	static String get(String info, String field) {
		String prefix = field + ":";
		for (String line : info.split("\r?\n")) {
			if (line.startsWith(prefix)) {
				return line.substring(prefix.length()).trim();
			}
		}
		return null;
	}

}
