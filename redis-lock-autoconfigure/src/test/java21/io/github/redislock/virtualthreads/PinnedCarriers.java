package io.github.redislock.virtualthreads;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * A JFR recording, in this JVM, of every time a virtual thread blocked while pinned to
 * its carrier ({@code jdk.VirtualThreadPinned}, with no threshold, with its stack): a
 * pinned waiter holds one of the few carrier threads for as long as it waits, and enough
 * of them stall every virtual thread of the JVM.
 * <p>
 * The recording is dumped and read back once stopped, rather than streamed, so that every
 * event of the run is counted, however late JFR flushes it.
 * <p>
 * A virtual thread that loads a class blocks pinned while another thread loads the same
 * class (the JDK's class loading lock is taken beneath a native frame): that happens once
 * per class, wherever the first use of a class falls (Netty loads one only when a
 * connection's buffer first fills, which a warm-up run need not reach), and says nothing
 * about how the library waits, so those events are left out. Class initializers are not:
 * a virtual thread that parks in one stays pinned for as long as it parks.
 */
final class PinnedCarriers implements AutoCloseable {

	static final String EVENT = "jdk.VirtualThreadPinned";

	private final Recording recording = new Recording();

	private PinnedCarriers() {
		this.recording.setName("pinned-carriers");
		this.recording.enable(EVENT).withThreshold(Duration.ZERO).withStackTrace();
	}

	/**
	 * Starts recording.
	 * @return the started recording
	 */
	static PinnedCarriers record() {
		PinnedCarriers pinned = new PinnedCarriers();
		pinned.recording.start();
		return pinned;
	}

	/**
	 * Stops recording and reads the events recorded.
	 * @return the pinned events, each described with its stack
	 */
	List<String> stop() {
		this.recording.stop();
		try {
			Path file = Files.createTempFile("pinned-carriers", ".jfr");
			try {
				this.recording.dump(file);
				return RecordingFile.readAllEvents(file)
					.stream()
					.filter((event) -> event.getEventType().getName().equals(EVENT))
					.filter((event) -> !loadsAClass(event))
					.map(PinnedCarriers::describe)
					.toList();
			}
			finally {
				Files.deleteIfExists(file);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@Override
	public void close() {
		this.recording.close();
	}

	private static boolean loadsAClass(RecordedEvent event) {
		return event.getStackTrace() != null && event.getStackTrace()
			.getFrames()
			.stream()
			.anyMatch((frame) -> frame.getMethod().getType().getName().equals(ClassLoader.class.getName())
					&& frame.getMethod().getName().equals("loadClass"));
	}

	private static String describe(RecordedEvent event) {
		String stack = (event.getStackTrace() != null) ? event.getStackTrace()
			.getFrames()
			.stream()
			.map(PinnedCarriers::describe)
			.collect(Collectors.joining("\n\tat ", "\n\tat ", "")) : " (no stack)";
		return "pinned for " + event.getDuration().toMillis() + " ms"
				+ (event.hasField("pinnedReason") ? " (" + event.getString("pinnedReason") + ")" : "") + stack;
	}

	private static String describe(RecordedFrame frame) {
		return frame.getMethod().getType().getName() + "." + frame.getMethod().getName() + ":" + frame.getLineNumber()
				+ " (" + frame.getType() + ")";
	}

}
