package io.github.redislock.benchmarks;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Runs one scenario for one implementation in a JVM of its own, so that no JIT profile,
 * heap or thread of another implementation is in the way, and writes the figures to a
 * file for the launcher.
 * <p>
 * Arguments: scenario id, figures file, then those of a {@link ScenarioContext}.
 */
public final class ScenarioProcess {

	private ScenarioProcess() {
	}

	public static void main(String[] args) throws Exception {
		List<String> arguments = Arrays.asList(args);
		Scenario scenario = Scenario.fromId(arguments.get(0));
		Path figuresFile = Path.of(arguments.get(1));
		ScenarioContext context = ScenarioContext.fromArguments(arguments.subList(2, arguments.size()));
		Figures figures;
		try (Profiling profiling = Profiling.startIfEnabled(context, scenario.id())) {
			figures = scenario.run(context);
		}
		figures.write(figuresFile);
		// Client libraries may leave non-daemon threads behind after closing
		System.exit(0);
	}

}
