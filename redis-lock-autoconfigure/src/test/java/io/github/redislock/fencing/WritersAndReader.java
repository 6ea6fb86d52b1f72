package io.github.redislock.fencing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * Runs the fencing fuzzes' threads: writers that start together, each on its own thread,
 * and one reader that reads until the last writer is done, so that it watches the
 * resources while they are written.
 */
final class WritersAndReader {

	private WritersAndReader() {
	}

	/**
	 * Run the writers and the reader, and wait for all of them.
	 * @param writers how many writers to start
	 * @param writer the work of the writer with the given index
	 * @param reader the reader's work, told whether the writers still write; it reads at
	 * least once after they stopped
	 * @param timeout how long the writers may take together
	 * @throws Exception what a writer or the reader threw, or a timeout
	 */
	static void run(int writers, IndexedWriter writer, Reader reader, Duration timeout) throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(writers + 1);
		AtomicBoolean writing = new AtomicBoolean(true);
		CountDownLatch start = new CountDownLatch(1);
		try {
			List<Future<?>> running = new ArrayList<>();
			for (int i = 0; i < writers; i++) {
				int index = i;
				running.add(executor.submit(() -> {
					start.await();
					writer.write(index);
					return null;
				}));
			}
			Future<?> reading = executor.submit(() -> {
				reader.read(writing::get);
				return null;
			});
			start.countDown();
			long deadline = System.nanoTime() + timeout.toNanos();
			for (Future<?> each : running) {
				each.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
			}
			writing.set(false);
			reading.get(10, TimeUnit.SECONDS);
		}
		finally {
			executor.shutdownNow();
			executor.awaitTermination(10, TimeUnit.SECONDS);
		}
	}

	/** The work of one writer. */
	interface IndexedWriter {

		void write(int index) throws Exception;

	}

	/** The reader's work. */
	interface Reader {

		void read(BooleanSupplier writing) throws Exception;

	}

}
