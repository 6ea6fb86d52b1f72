package io.github.redislock.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Write system calls made by this JVM so far, from Linux's {@code /proc/self/io}: how
 * many times the client sent something, whatever it sent each time. A client that
 * pipelines many commands into one write sends them in one network round trip, which
 * counting commands does not show.
 */
final class ClientWrites {

	private static final Path IO = Path.of("/proc/self/io");

	private static final String WRITES = "syscw:";

	private ClientWrites() {
	}

	/** Write system calls so far, or -1 where the system does not count them. */
	static long count() {
		try {
			for (String line : Files.readAllLines(IO)) {
				if (line.startsWith(WRITES)) {
					return Long.parseLong(line.substring(WRITES.length()).trim());
				}
			}
			return -1;
		}
		catch (IOException | RuntimeException ex) {
			return -1;
		}
	}

}
