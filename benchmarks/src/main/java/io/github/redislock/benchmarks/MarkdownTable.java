package io.github.redislock.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A markdown table, built row by row, and the number formats the report uses.
 */
final class MarkdownTable {

	private final List<String> header;

	private final List<List<String>> rows = new ArrayList<>();

	MarkdownTable(String... header) {
		this.header = List.of(header);
	}

	MarkdownTable row(String... cells) {
		this.rows.add(List.of(cells));
		return this;
	}

	/**
	 * A row for an implementation that failed: what went wrong in the first figure's
	 * column, the others left empty.
	 */
	MarkdownTable failedRow(String title, Figures failed) {
		return noteRow(title, "failed: " + failed.failure());
	}

	/**
	 * A row that says something instead of giving figures, such as why an implementation
	 * was left out: the note in the first figure's column, the others left empty.
	 */
	MarkdownTable noteRow(String title, String note) {
		List<String> cells = new ArrayList<>(List.of(title, note));
		while (cells.size() < this.header.size()) {
			cells.add("");
		}
		this.rows.add(cells);
		return this;
	}

	/** The index of the first column of that name, or -1. */
	int column(String name) {
		return this.header.indexOf(name);
	}

	List<List<String>> rows() {
		return this.rows;
	}

	boolean isEmpty() {
		return this.rows.isEmpty();
	}

	String markdown() {
		StringBuilder text = new StringBuilder();
		line(text, this.header);
		text.append('|');
		for (int i = 0; i < this.header.size(); i++) {
			text.append(" --- |");
		}
		text.append('\n');
		this.rows.forEach((row) -> line(text, row));
		return text.toString();
	}

	private static void line(StringBuilder text, List<String> cells) {
		text.append('|');
		cells.forEach((cell) -> text.append(' ').append(cell.replace("|", "\\|")).append(" |"));
		text.append('\n');
	}

	/** A count with thousands separators: {@code 12,345}. */
	static String count(double value) {
		return String.format(Locale.ROOT, "%,.0f", value);
	}

	/** Microseconds shown in milliseconds: {@code 0.42}. */
	static String millis(double micros) {
		double millis = micros / 1000;
		return String.format(Locale.ROOT, (millis >= 100) ? "%,.0f" : "%.2f", millis);
	}

	/** Microseconds: {@code 187} or {@code 9.5}. */
	static String micros(double micros) {
		return String.format(Locale.ROOT, (micros >= 100) ? "%,.0f" : "%.1f", micros);
	}

	/** A ratio: {@code 1.08x}. */
	static String ratio(double value) {
		return String.format(Locale.ROOT, "%.2fx", value);
	}

	/** Bytes, with one decimal below 10: {@code 0.3} or {@code 412}. */
	static String bytes(double value) {
		// A reading a hair below zero is noise, not a negative size: no "-0.0"
		double shown = (Math.abs(value) < 0.05) ? 0 : value;
		return String.format(Locale.ROOT, (Math.abs(shown) >= 10) ? "%,.0f" : "%.1f", shown);
	}

}
