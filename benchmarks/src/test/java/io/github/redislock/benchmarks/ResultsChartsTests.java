package io.github.redislock.benchmarks;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ResultsCharts} and {@link ScenarioChart}: the tables read back from a report as
 * they were written, and well-formed SVG for every scenario of the recorded report.
 */
class ResultsChartsTests {

	@Test
	void readsBackTheTablesTheReportWrote() {
		MarkdownTable written = new MarkdownTable("Implementation", "ops/s", "wait p50 ms", "p99 ms", "max ms")
			.row("redis-lock", "12,780", "0.00", "2.19", "16.35")
			.row("limit: local fair ReentrantLock", "11,407", "0.61", "0.94", "10.35")
			.failedRow("Redisson RLock", Figures.failed("IllegalStateException: a | b"));
		String report = "# Benchmark results\n\n## Targets\n\n| Target | Met |\n| --- | --- |\n| x | yes |\n\n## "
				+ Scenario.HOT_KEY.title() + "\n\nWhat it measures.\n\n" + written.markdown() + "\n";

		Map<Scenario, MarkdownTable> tables = ResultsCharts.read(report);

		assertThat(tables).containsOnlyKeys(Scenario.HOT_KEY);
		assertThat(tables.get(Scenario.HOT_KEY).rows()).isEqualTo(written.rows());
		assertThat(tables.get(Scenario.HOT_KEY).column("max ms")).isEqualTo(4);
	}

	@Test
	void drawsBarsLimitsAndPercentiles() throws Exception {
		MarkdownTable table = new MarkdownTable("Implementation", "ops/s", "wait p50 ms", "p99 ms", "max ms")
			.row("redis-lock", "12,780", "0.00", "2.19", "16.35")
			.row("Spring Integration SPIN_LOCK", "4,440", "0.05", "0.11", "714")
			.row("limit: local fair ReentrantLock", "11,407", "0.61", "0.94", "10.35")
			.failedRow("Redisson RLock <&>", Figures.failed("timed out"));

		Document svg = parsed(new ScenarioChart(Scenario.HOT_KEY, table).svg());

		NodeList bars = svg.getElementsByTagName("rect");
		long limitBars = elements(bars).stream()
			.filter((bar) -> bar.getAttribute("fill").equals("url(#limit)"))
			.count();
		// The limit's bar and its legend swatch
		assertThat(limitBars).isEqualTo(2);
		List<String> texts = elements(svg.getElementsByTagName("text")).stream().map(Element::getTextContent).toList();
		assertThat(texts).contains("12,780", "Redisson RLock <&>", "failed: timed out", "0.05 / 0.11 / 714");
		assertThat(texts).anyMatch((text) -> text.contains("log scale"));
		// Three marks (p50, p99, max) per row that ran, three in the legend
		int marks = svg.getElementsByTagName("circle").getLength() + svg.getElementsByTagName("polygon").getLength();
		assertThat(marks).isEqualTo(8);
	}

	@Test
	void drawsEveryScenarioOfTheRecordedReport(@TempDir Path directory) throws Exception {
		String recorded = Files.readString(Path.of("RESULTS.md"), StandardCharsets.UTF_8);

		List<Path> charts = ResultsCharts.write(ResultsCharts.read(recorded), directory);

		assertThat(charts).hasSize(Scenario.values().length);
		for (Path chart : charts) {
			String svg = Files.readString(chart, StandardCharsets.UTF_8);
			assertThat(parsed(svg).getDocumentElement().getTagName()).isEqualTo("svg");
			// The committed charts are those of the committed report
			assertThat(Path.of("charts").resolve(chart.getFileName())).hasContent(svg);
		}
	}

	private static Document parsed(String svg) throws Exception {
		DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
		factory.setNamespaceAware(true);
		return factory.newDocumentBuilder().parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
	}

	private static List<Element> elements(NodeList nodes) {
		return java.util.stream.IntStream.range(0, nodes.getLength()).mapToObj((i) -> (Element) nodes.item(i)).toList();
	}

}
