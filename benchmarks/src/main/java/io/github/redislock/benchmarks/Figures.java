package io.github.redislock.benchmarks;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;

/**
 * The measurements of one implementation in one scenario, by name, as a scenario process
 * hands them to the launcher through a properties file.
 */
final class Figures {

	private static final String FAILED = "failed";

	private final Properties values = new Properties();

	/**
	 * The figures of a run that failed: only what went wrong, for the implementation's
	 * row.
	 * @param failure a short description, see {@link Failures}
	 */
	static Figures failed(String failure) {
		return new Figures().put(FAILED, failure);
	}

	boolean isFailed() {
		return has(FAILED);
	}

	/** What went wrong in a run that {@link #isFailed() failed}. */
	String failure() {
		return get(FAILED);
	}

	Figures put(String name, Object value) {
		this.values.setProperty(name, String.valueOf(value));
		return this;
	}

	boolean has(String name) {
		return this.values.containsKey(name);
	}

	long getLong(String name) {
		return Long.parseLong(get(name));
	}

	double getDouble(String name) {
		return Double.parseDouble(get(name));
	}

	String get(String name) {
		String value = this.values.getProperty(name);
		if (value == null) {
			throw new IllegalStateException("No figure '" + name + "' among " + this.values.stringPropertyNames());
		}
		return value;
	}

	Set<String> names() {
		return this.values.stringPropertyNames();
	}

	void write(Path file) {
		try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
			this.values.store(writer, null);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	static Figures read(Path file) {
		Figures figures = new Figures();
		try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
			figures.values.load(reader);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return figures;
	}

	/** Two decimals, or fewer digits where they would only add noise. */
	static String decimal(double value) {
		if (value == Math.rint(value)) {
			return String.format(Locale.ROOT, "%.0f", value);
		}
		return String.format(Locale.ROOT, (Math.abs(value) >= 100) ? "%.0f" : "%.2f", value);
	}

}
