package io.github.redislock.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.ParseException;

import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import org.jspecify.annotations.Nullable;

/**
 * A JFR recording of a whole scenario process with the {@code profile} settings, when
 * {@code bench.jfr=true}: open it with JDK Mission Control or {@code jfr print}.
 */
final class Profiling implements AutoCloseable {

	private final @Nullable Recording recording;

	private Profiling(@Nullable Recording recording) {
		this.recording = recording;
	}

	static Profiling startIfEnabled(ScenarioContext context, String name) {
		if (!context.settings().jfr()) {
			return new Profiling(null);
		}
		try {
			Path directory = Benchmarks.moduleDirectory().resolve("target/jfr");
			Files.createDirectories(directory);
			Recording recording = new Recording(Configuration.getConfiguration("profile"));
			recording.setDestination(directory.resolve(name + "-" + context.implementation().id() + ".jfr"));
			recording.start();
			return new Profiling(recording);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (ParseException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Override
	public void close() {
		if (this.recording != null) {
			// Stopping writes the recording to its destination
			this.recording.stop();
			this.recording.close();
		}
	}

}
