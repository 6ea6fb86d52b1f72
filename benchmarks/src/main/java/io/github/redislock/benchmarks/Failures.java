package io.github.redislock.benchmarks;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * Short descriptions of what went wrong, for a row of the report: a failing
 * implementation is reported in its row and the run goes on, so the description must fit
 * in a table cell yet name the exception.
 */
final class Failures {

	private static final int MAX_MESSAGE = 160;

	/** A line such as {@code Caused by: org.x.SomeException: message}. */
	private static final Pattern EXCEPTION_LINE = Pattern.compile(
			"^(?:Exception in thread \"[^\"]*\" |Caused by: )?((?:[\\w$]+\\.)*([\\w$]*(?:Exception|Error)))(?::\\s*(.*))?$");

	private Failures() {
	}

	/**
	 * The exception's class and message, and those of its root cause when that is another
	 * exception: {@code CannotAcquireLockException: Failed to lock mutex at x (caused by
	 * IllegalStateException: ...)}.
	 */
	static String describe(Throwable failure) {
		Throwable root = failure;
		while (root.getCause() != null && root.getCause() != root) {
			root = root.getCause();
		}
		String description = oneLine(failure);
		return (root != failure) ? description + " (caused by " + oneLine(root) + ")" : description;
	}

	/**
	 * What another JVM died of, from its output: the last cause of the last stack trace
	 * it printed, or its last line when it printed none.
	 */
	static String fromOutput(String output) {
		String[] lines = output.strip().split("\r?\n");
		@Nullable String outermost = null;
		@Nullable String root = null;
		for (String line : lines) {
			Matcher matcher = EXCEPTION_LINE.matcher(line.strip());
			if (matcher.matches() && !line.startsWith("\t")) {
				String text = shorten(matcher.group(2), matcher.group(3));
				if (line.startsWith("Caused by: ")) {
					root = text;
				}
				else {
					outermost = text;
					root = null;
				}
			}
		}
		if (outermost == null) {
			return (lines.length > 0 && !lines[lines.length - 1].isBlank())
					? "exited with: " + shorten(lines[lines.length - 1]) : "exited without output";
		}
		return (root != null) ? outermost + " (caused by " + root + ")" : outermost;
	}

	/**
	 * Throw a failure that a worker thread caught as it is, so that the report names the
	 * library's exception rather than a wrapper of the harness.
	 */
	static RuntimeException rethrow(Throwable failure) {
		if (failure instanceof RuntimeException runtime) {
			throw runtime;
		}
		if (failure instanceof Error error) {
			throw error;
		}
		throw new IllegalStateException(failure);
	}

	private static String oneLine(Throwable failure) {
		return shorten(failure.getClass().getSimpleName(), failure.getMessage());
	}

	private static String shorten(String exception, @Nullable String message) {
		return (message == null || message.isBlank()) ? exception : exception + ": " + shorten(message);
	}

	private static String shorten(String message) {
		String line = message.strip().lines().findFirst().orElse("");
		return (line.length() <= MAX_MESSAGE) ? line : line.substring(0, MAX_MESSAGE - 1) + "…";
	}

}
