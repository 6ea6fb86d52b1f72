package io.github.redislock.benchmarks;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Runs one scenario for one implementation in a JVM of its own, so that no JIT profile,
 * heap or thread of another implementation is in the way, and writes the figures to a
 * file for the launcher: when the scenario fails, what went wrong, and exits with status
 * 1.
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
		int status = 0;
		try (Profiling profiling = Profiling.startIfEnabled(context, scenario.id())) {
			figures = scenario.run(context);
		}
		catch (Throwable ex) {
			// The launcher reports it in the implementation's row and goes on; the stack
			// trace goes to the output it shows
			ex.printStackTrace();
			figures = Figures.failed(Failures.describe(ex));
			status = 1;
		}
		figures.write(figuresFile);
		// Client libraries may leave non-daemon threads behind after closing
		System.exit(status);
	}

}
