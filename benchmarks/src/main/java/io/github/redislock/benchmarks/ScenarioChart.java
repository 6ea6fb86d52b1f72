package io.github.redislock.benchmarks;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One scenario's table of {@code RESULTS.md} drawn as an SVG: horizontal bars of ops/s
 * per implementation, the limits and floors hatched in grey so that they do not read as
 * locks, and the scenario's wait or latency percentiles on a log scale, where they span
 * from microseconds to seconds. It reads the table's formatted cells, so that a chart
 * drawn at the end of a run and one drawn again from the recorded report are the same.
 * The background is explicit, so the chart reads alike in light and dark themes.
 */
final class ScenarioChart {

	private static final int WIDTH = 900;

	private static final int LABEL_X = 16;

	private static final int PLOT_X = 280;

	private static final int PLOT_WIDTH = 430;

	private static final int VALUES_X = PLOT_X + PLOT_WIDTH + 16;

	private static final int ROW = 22;

	private static final String GRID = "#d1d9e0";

	private static final String MUTED = "fill=\"#59636e\"";

	private static final String REDIS_LOCK = "fill=\"#0969da\"";

	private static final String PEER = "fill=\"#bc4c00\"";

	private static final String LIMIT = "fill=\"url(#limit)\" stroke=\"#818b98\"";

	/** The fill of each percentile's mark, by its place in a panel. */
	private static final String[] SERIES = { "fill=\"#0969da\"", "fill=\"#bf3989\"", "fill=\"#1a7f37\"" };

	private final Scenario scenario;

	private final MarkdownTable table;

	private final StringBuilder svg = new StringBuilder();

	private int y;

	ScenarioChart(Scenario scenario, MarkdownTable table) {
		this.scenario = scenario;
		this.table = table;
	}

	String svg() {
		this.y = 30;
		text(LABEL_X, this.y, this.scenario.title(), "font-size=\"16\" font-weight=\"600\"");
		this.y += 20;
		text(LABEL_X, this.y, "Benchmark scenario " + this.scenario.id() + ", drawn from its table in the report",
				MUTED);
		this.y += 14;
		int opsPerSecond = this.table.column("ops/s");
		if (opsPerSecond >= 0) {
			bars(opsPerSecond);
		}
		for (Panel panel : panels(this.scenario)) {
			int first = this.table.column(panel.firstColumn());
			if (first >= 0) {
				percentiles(panel, first);
			}
		}
		int height = this.y + 16;
		return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + WIDTH + "\" height=\"" + height
				+ "\" viewBox=\"0 0 " + WIDTH + " " + height + "\" font-family=\"-apple-system, 'Segoe UI', "
				+ "Helvetica, Arial, sans-serif\" font-size=\"12\" fill=\"#1f2328\">\n"
				+ "<defs><pattern id=\"limit\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
				+ "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#eaeef2\"/>"
				+ "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#818b98\" stroke-width=\"2\"/></pattern></defs>\n"
				+ "<rect width=\"100%\" height=\"100%\" rx=\"6\" fill=\"#ffffff\" stroke=\"" + GRID + "\"/>\n"
				+ this.svg + "</svg>\n";
	}

	/** The percentile panels of a scenario: each its columns, from the first named. */
	private static List<Panel> panels(Scenario scenario) {
		return switch (scenario) {
			case UNCONTENDED -> List.of(new Panel("Latency of lock + release, µs", "p50 µs", "p50", "p99"));
			case HOT_KEY, HOT_KEY_TWO_JVMS, FAIR_HOT_KEY, FAIR_HOT_KEY_TWO_JVMS, PERMITS ->
				List.of(new Panel("Wait from request to grant, ms", "wait p50 ms", "p50", "p99", "max"));
			case READ_WRITE -> List.of(new Panel("Read wait, ms", "read wait p50 ms", "p50", "p99"),
					new Panel("Write wait, ms (do writers starve?)", "write wait p50 ms", "p50", "p99", "max"));
			case WAITERS -> List.of(
					new Panel("Release to first grant, ms (warm rounds)", "release → first grant ms, median", "median",
							"max"),
					new Panel("Release to last grant, ms (warm rounds)", "release → last grant ms, median", "median",
							"max"));
			case MANY_HELD -> List.of(
					new Panel("CPU per held lock per renew interval, µs", "client CPU µs per held lock per interval",
							"client", "Redis"),
					new Panel("Client write system calls per renew interval", "client writes per interval", "writes"));
			case MANY_KEYS -> List.of();
		};
	}

	private void bars(int column) {
		List<List<String>> rows = this.table.rows();
		double max = Math.max(1,
				rows.stream().mapToDouble((row) -> number(row.get(column))).filter(Double::isFinite).max().orElse(1));
		double step = niceStep(max / 5);
		double top = Math.ceil(max / step) * step;
		heading("Throughput, ops/s (longer is better)");
		// A swatch for each kind of row drawn: redis-lock, its peers, the limits
		Map<String, String> kinds = new LinkedHashMap<>();
		rows.stream().filter((row) -> Double.isFinite(number(row.get(column)))).forEach((row) -> {
			String style = style(row.get(0));
			kinds.put(style, (style.equals(REDIS_LOCK)) ? "redis-lock"
					: (style.equals(PEER)) ? "peers" : "limits and floors: no locks, but what none could beat");
		});
		legend(kinds.values().toArray(String[]::new), kinds.keySet().toArray(String[]::new), false);
		int plotTop = this.y;
		int plotBottom = plotTop + rows.size() * ROW;
		for (double tick = 0; tick <= top + step / 2; tick += step) {
			gridLine(PLOT_X + tick / top * PLOT_WIDTH, plotTop, plotBottom, MarkdownTable.count(tick));
		}
		for (List<String> row : rows) {
			String title = row.get(0);
			label(title);
			double value = number(row.get(column));
			if (Double.isFinite(value)) {
				double width = Math.max(1, value / top * PLOT_WIDTH);
				this.svg
					.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"14\" %s/>%n",
							PLOT_X, this.y + 4, width, style(title)));
				text(PLOT_X + width + 6, this.y + 15, row.get(column), "");
			}
			else {
				String note = row.get(column);
				text(PLOT_X + 6, this.y + 15, (note.length() > 70) ? note.substring(0, 69) + "…" : note,
						"fill=\"#d1242f\"");
			}
			this.y += ROW;
		}
		this.y += 22;
	}

	private void percentiles(Panel panel, int first) {
		List<List<String>> rows = new ArrayList<>();
		double low = Double.MAX_VALUE;
		double high = 0;
		for (List<String> row : this.table.rows()) {
			if (Double.isFinite(number(row.get(first)))) {
				rows.add(row);
				for (int i = 0; i < panel.series().length; i++) {
					double value = number(row.get(first + i));
					low = (value > 0) ? Math.min(low, value) : low;
					high = Math.max(high, value);
				}
			}
		}
		if (rows.isEmpty()) {
			return;
		}
		// Waits span from 0.01 ms to seconds: a decade per step of the axis
		int lowDecade = (int) Math.floor(Math.log10(Math.min(low, Math.max(high, 1e-2))));
		int highDecade = Math.max(lowDecade + 1, (int) Math.ceil(Math.log10(Math.max(high, 1e-2))));
		boolean zero = rows.stream().anyMatch((row) -> number(row.get(first)) == 0);
		heading(panel.title() + ", log scale" + (zero ? " (0.00 is drawn at the left end)" : ""));
		legend(panel.series(), SERIES, true);
		int plotTop = this.y;
		int plotBottom = plotTop + rows.size() * ROW;
		for (int decade = lowDecade; decade <= highDecade; decade++) {
			double x = PLOT_X + (double) (decade - lowDecade) / (highDecade - lowDecade) * PLOT_WIDTH;
			gridLine(x, plotTop, plotBottom, decimal(Math.pow(10, decade)));
		}
		for (List<String> row : rows) {
			label((this.scenario == Scenario.MANY_HELD) ? row.get(0) + ", " + row.get(1) + " held" : row.get(0));
			double[] xs = new double[panel.series().length];
			for (int i = 0; i < xs.length; i++) {
				double value = number(row.get(first + i));
				double decades = Math.log10(Math.max(value, Math.pow(10, lowDecade))) - lowDecade;
				xs[i] = Double.isFinite(value) ? PLOT_X + decades / (highDecade - lowDecade) * PLOT_WIDTH : Double.NaN;
			}
			double from = Arrays.stream(xs).filter(Double::isFinite).min().orElse(PLOT_X);
			double to = Arrays.stream(xs).filter(Double::isFinite).max().orElse(PLOT_X);
			this.svg.append(String.format(Locale.ROOT,
					"<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#818b98\" stroke-width=\"2\"/>%n", from,
					this.y + 11, to, this.y + 11));
			for (int i = 0; i < xs.length; i++) {
				if (Double.isFinite(xs[i])) {
					mark(i, xs[i], this.y + 11, SERIES[i]);
				}
			}
			text(VALUES_X, this.y + 15, String.join(" / ", row.subList(first, first + xs.length)), "");
			this.y += ROW;
		}
		this.y += 22;
	}

	private void heading(String title) {
		this.y += 22;
		text(LABEL_X, this.y, title, "font-size=\"14\" font-weight=\"600\"");
	}

	/** A line of swatches (bars) or marks (percentiles) naming what each stands for. */
	private void legend(String[] names, String[] styles, boolean marks) {
		this.y += 20;
		int x = LABEL_X;
		for (int i = 0; i < names.length; i++) {
			if (marks) {
				mark(i, x + 5, this.y - 4, styles[i]);
			}
			else {
				this.svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" %s/>%n",
						x, this.y - 10, styles[i]));
			}
			text(x + 18, this.y, names[i], "");
			x += 30 + names[i].length() * 7;
		}
		if (marks) {
			text(VALUES_X, this.y, String.join(" / ", names), MUTED);
		}
		this.y += 8;
	}

	/**
	 * A circle, a square or a triangle, by the series' place: told apart without colour.
	 */
	private void mark(int series, double x, double y, String style) {
		String shape = switch (series) {
			case 0 -> String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\"", x, y);
			case 1 ->
				String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"9\" height=\"9\"", x - 4.5, y - 4.5);
			default -> String.format(Locale.ROOT, "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\"", x, y - 6,
					x + 5.5, y + 4, x - 5.5, y + 4);
		};
		this.svg.append(shape).append(' ').append(style).append(" stroke=\"#ffffff\"/>\n");
	}

	private void gridLine(double x, int top, int bottom, String label) {
		this.svg.append(String.format(Locale.ROOT,
				"<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\"/>%n", x, top, x, bottom, GRID));
		text(x, bottom + 14, label, MUTED + " text-anchor=\"middle\"");
	}

	private void label(String title) {
		String shown = (title.length() > 42) ? title.substring(0, 41) + "…" : title;
		text(LABEL_X, this.y + 15, shown, isLimit(title) ? MUTED + " font-style=\"italic\"" : "");
	}

	private void text(double x, int y, String text, String attributes) {
		this.svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\"%s>%s</text>%n", x, y,
				attributes.isEmpty() ? "" : " " + attributes, escaped(text)));
	}

	/** A bar's fill: redis-lock's rows, its peers' or the limits'. */
	private static String style(String title) {
		return isLimit(title) ? LIMIT : title.startsWith("redis-lock") ? REDIS_LOCK : PEER;
	}

	/** The limit rows ({@code limit: …}) and the two floors, which are no peers. */
	static boolean isLimit(String title) {
		return title.startsWith("limit:") || title.contains("floor");
	}

	/** A formatted cell as a number ({@code 12,780}, {@code 1.06x}), or NaN. */
	static double number(String cell) {
		String plain = cell.replace(",", "").replaceAll("[x%]$", "").trim();
		try {
			return Double.parseDouble(plain);
		}
		catch (NumberFormatException ex) {
			return Double.NaN;
		}
	}

	/** 1, 2 or 5 times a power of ten: grid lines at round numbers. */
	private static double niceStep(double rough) {
		double power = Math.pow(10, Math.floor(Math.log10(Math.max(rough, 1e-9))));
		double fraction = rough / power;
		return ((fraction <= 1) ? 1 : (fraction <= 2) ? 2 : (fraction <= 5) ? 5 : 10) * power;
	}

	private static String decimal(double value) {
		return (value >= 1) ? MarkdownTable.count(value)
				: BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
	}

	private static String escaped(String text) {
		return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
	}

	/** A set of percentile columns, side by side in the table from the first named. */
	private record Panel(String title, String firstColumn, String... series) {
	}

}
