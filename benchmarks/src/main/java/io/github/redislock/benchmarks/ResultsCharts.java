package io.github.redislock.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Writes a {@link ScenarioChart} per scenario, {@code charts/<scenario>.svg} beside the
 * report: at the end of a run from the tables it reported, or again from a
 * {@code RESULTS.md} this module wrote, without a run:
 * {@code java -cp benchmarks/target/redis-lock-benchmarks.jar
 * io.github.redislock.benchmarks.ResultsCharts [benchmarks/RESULTS.md]}.
 */
public final class ResultsCharts {

	private ResultsCharts() {
	}

	public static void main(String[] args) throws IOException {
		Path report = (args.length > 0) ? Path.of(args[0]) : Benchmarks.moduleDirectory().resolve("RESULTS.md");
		for (Path chart : write(read(Files.readString(report, StandardCharsets.UTF_8)), directoryBeside(report))) {
			System.out.println("Written " + chart);
		}
	}

	/** The {@code charts} directory beside a report. */
	static Path directoryBeside(Path report) {
		return report.toAbsolutePath().normalize().resolveSibling("charts");
	}

	static List<Path> write(Map<Scenario, MarkdownTable> tables, Path directory) throws IOException {
		Files.createDirectories(directory);
		List<Path> written = new ArrayList<>();
		for (Map.Entry<Scenario, MarkdownTable> table : tables.entrySet()) {
			if (!table.getValue().isEmpty()) {
				Path chart = directory.resolve(table.getKey().id() + ".svg");
				Files.writeString(chart, new ScenarioChart(table.getKey(), table.getValue()).svg(),
						StandardCharsets.UTF_8);
				written.add(chart);
			}
		}
		return written;
	}

	/**
	 * The scenario tables of a report {@link ResultsReport} wrote: the first table under
	 * each heading that is a scenario's title.
	 */
	static Map<Scenario, MarkdownTable> read(String markdown) {
		Map<Scenario, MarkdownTable> tables = new EnumMap<>(Scenario.class);
		Scenario scenario = null;
		MarkdownTable table = null;
		for (String line : markdown.split("\n")) {
			if (line.startsWith("## ")) {
				String title = line.substring(3).strip();
				scenario = Arrays.stream(Scenario.values())
					.filter((s) -> s.title().equals(title))
					.findFirst()
					.orElse(null);
				table = null;
			}
			else if (scenario != null && line.startsWith("|") && !line.startsWith("| ---")) {
				if (table == null) {
					table = new MarkdownTable(cells(line));
					tables.putIfAbsent(scenario, table);
				}
				else if (tables.get(scenario) == table) {
					table.row(cells(line));
				}
			}
		}
		return tables;
	}

	/** The cells of a table line, {@code \|} in a cell read back as {@code |}. */
	private static String[] cells(String line) {
		String[] split = line.strip().split("(?<!\\\\)\\|", -1);
		return Arrays.stream(split, 1, split.length - 1)
			.map((cell) -> cell.strip().replace("\\|", "|"))
			.toArray(String[]::new);
	}

}
