package io.github.redislock.benchmarks;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import io.github.redislock.test.JavaProcess;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;

/**
 * Runs every scenario for every implementation, one JVM each, against a
 * {@code redis-server} of its own on a free loopback port, and writes
 * {@code benchmarks/RESULTS.md} and its {@link ResultsCharts}. An implementation that
 * fails in a scenario is reported in its row and the run goes on; the exit status is 1
 * when redis-lock failed, blocking or reactive. See {@code benchmarks/README.md} for the
 * system properties that choose scenarios, implementations and durations.
 */
public final class Benchmarks {

	private Benchmarks() {
	}

	public static void main(String[] args) throws Exception {
		BenchmarkSettings settings = BenchmarkSettings.fromSystemProperties();
		List<Scenario> scenarios = selected("bench.scenarios", Scenario.values(), Scenario::id);
		List<Implementation> implementations = selected("bench.implementations", Implementation.values(),
				Implementation::id);
		Path output = Path.of(System.getProperty("bench.output", moduleDirectory().resolve("RESULTS.md").toString()));
		Map<Scenario, Map<Implementation, Figures>> results = new EnumMap<>(Scenario.class);
		try (RedisServer redis = RedisServer.start()) {
			System.out
				.println("Redis " + redis.version() + " on " + redis.host() + ":" + redis.port() + "; " + settings);
			for (Scenario scenario : scenarios) {
				for (Implementation implementation : scenario.implementations()) {
					if (implementations.contains(implementation)) {
						Figures figures = run(scenario,
								new ScenarioContext(implementation, redis.host(), redis.port(), settings));
						results.computeIfAbsent(scenario, (key) -> new EnumMap<>(Implementation.class))
							.put(implementation, figures);
					}
				}
			}
			ResultsReport resultsReport = new ResultsReport(Environment.of(redis.version(), settings), results);
			String report = resultsReport.markdown();
			Files.writeString(output, report, StandardCharsets.UTF_8);
			System.out.println();
			System.out.println(report);
			System.out.println("Written to " + output.toAbsolutePath().normalize());
			ResultsCharts.write(resultsReport.tables(), ResultsCharts.directoryBeside(output))
				.forEach((chart) -> System.out.println("Written " + chart));
		}
		// Peers may fail and the report says so; redis-lock failing fails the run
		boolean redisLockFailed = results.values()
			.stream()
			.flatMap((figures) -> figures.entrySet().stream())
			.anyMatch((entry) -> entry.getKey().isRedisLock() && entry.getValue().isFailed());
		if (redisLockFailed) {
			System.out.println("redis-lock failed: see its rows in the report");
		}
		System.exit(redisLockFailed ? 1 : 0);
	}

	/**
	 * Run one implementation in one scenario. A failure, of the process or of the
	 * launcher around it, becomes that implementation's figures: the run goes on with the
	 * next one.
	 */
	private static Figures run(Scenario scenario, ScenarioContext context) {
		System.out.printf("%-18s %-34s ", scenario.id(), context.implementation().title(scenario.kind()));
		long start = System.nanoTime();
		Figures figures;
		String output;
		try {
			Ran ran = runProcess(scenario, context);
			figures = ran.figures();
			output = ran.output();
		}
		catch (Exception ex) {
			figures = Figures.failed(Failures.describe(ex));
			StringWriter trace = new StringWriter();
			ex.printStackTrace(new PrintWriter(trace));
			output = trace.toString();
		}
		double seconds = (System.nanoTime() - start) / 1e9;
		if (figures.isFailed()) {
			System.out.printf("failed in %.0f s: %s%n", seconds, figures.failure());
		}
		else {
			System.out.printf("done in %.0f s%n", seconds);
		}
		System.out.print(indented(output));
		return figures;
	}

	private static Ran runProcess(Scenario scenario, ScenarioContext context) throws Exception {
		try (RedisCli cli = context.cli()) {
			cli.flushAll();
		}
		Path figuresFile = Files.createTempFile("figures", ".properties");
		List<String> arguments = new ArrayList<>(List.of(scenario.id(), figuresFile.toString()));
		arguments.addAll(context.toArguments());
		try (JavaProcess process = JavaProcess.start(ScenarioProcess.class, arguments.toArray(String[]::new))) {
			int exit = process.waitFor(scenario.timeout(context.settings()));
			Figures figures = Figures.read(figuresFile);
			if (exit != 0 && !figures.isFailed()) {
				// It died before it could say why: its output tells
				figures = Figures.failed("exit status " + exit + ", " + Failures.fromOutput(process.output()));
			}
			return new Ran(figures, process.output());
		}
		finally {
			Files.deleteIfExists(figuresFile);
		}
	}

	/**
	 * What a scenario process logged, warnings or why it failed: worth seeing, under its
	 * line.
	 */
	private static String indented(String output) {
		String trimmed = output.strip();
		return trimmed.isEmpty() ? "" : "    " + trimmed.replace("\n", "\n    ") + "\n";
	}

	private static <T> List<T> selected(String property, T[] all, Function<T, String> id) {
		String value = System.getProperty(property, "all");
		if (value.equals("all")) {
			return List.of(all);
		}
		List<String> ids = Arrays.stream(value.split(",")).map(String::trim).toList();
		List<T> chosen = Arrays.stream(all).filter((item) -> ids.contains(id.apply(item))).toList();
		if (chosen.size() != ids.size()) {
			throw new IllegalArgumentException(property + "=" + value + " names unknown items; choose among "
					+ Arrays.stream(all).map(id).toList());
		}
		return chosen;
	}

	/**
	 * The {@code benchmarks} directory: where the jar or classes were loaded from, up
	 * two.
	 */
	static Path moduleDirectory() {
		try {
			Path location = Path.of(Benchmarks.class.getProtectionDomain().getCodeSource().getLocation().toURI());
			return location.toAbsolutePath().getParent().getParent();
		}
		catch (URISyntaxException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** What a scenario process left: its figures and what it printed. */
	private record Ran(Figures figures, String output) {
	}

}
