package io.github.redislock.benchmarks;

import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
 * {@code benchmarks/RESULTS.md}. See {@code benchmarks/README.md} for the system
 * properties that choose scenarios, implementations and durations.
 */
public final class Benchmarks {

	private static final Duration PROCESS_TIMEOUT = Duration.ofMinutes(5);

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
			String report = new ResultsReport(Environment.of(redis.version(), settings), results).markdown();
			Files.writeString(output, report, StandardCharsets.UTF_8);
			System.out.println();
			System.out.println(report);
			System.out.println("Written to " + output.toAbsolutePath().normalize());
		}
		System.exit(0);
	}

	private static Figures run(Scenario scenario, ScenarioContext context) throws Exception {
		System.out.printf("%-18s %-34s ", scenario.id(), context.implementation().title());
		try (RedisCli cli = context.cli()) {
			cli.flushAll();
		}
		Path figuresFile = Files.createTempFile("figures", ".properties");
		List<String> arguments = new ArrayList<>(List.of(scenario.id(), figuresFile.toString()));
		arguments.addAll(context.toArguments());
		long start = System.nanoTime();
		try (JavaProcess process = JavaProcess.start(ScenarioProcess.class, arguments.toArray(String[]::new))) {
			int exit = process.waitFor(PROCESS_TIMEOUT);
			if (exit != 0) {
				throw new IllegalStateException(
						scenario.id() + " failed for " + context.implementation().title() + ":\n" + process.output());
			}
			Figures figures = Figures.read(figuresFile);
			System.out.printf("done in %.0f s%s%n", (System.nanoTime() - start) / 1e9, warnings(process.output()));
			return figures;
		}
		finally {
			Files.deleteIfExists(figuresFile);
		}
	}

	/** What a scenario process logged, which is only ever warnings: worth seeing. */
	private static String warnings(String output) {
		String trimmed = output.strip();
		return trimmed.isEmpty() ? "" : "\n    " + trimmed.replace("\n", "\n    ");
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

}
