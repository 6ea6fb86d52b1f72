package io.github.redislock.virtualthreads;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * The overlap detector of read/write locks: per document, the readers and writers inside;
 * a writer that finds anyone else inside, or a reader that finds a writer, counts a
 * violation.
 */
final class ReadersAndWriters {

	private final AtomicIntegerArray readers;

	private final AtomicIntegerArray writers;

	private final AtomicInteger violations = new AtomicInteger();

	private final AtomicInteger reads = new AtomicInteger();

	ReadersAndWriters(int documents) {
		this.readers = new AtomicIntegerArray(documents);
		this.writers = new AtomicIntegerArray(documents);
	}

	/** Enters the document, as its lock's holder, and leaves it again. */
	void enter(int document, boolean writing) {
		(writing ? this.writers : this.readers).incrementAndGet(document);
		try {
			check(document, writing);
			if (!writing) {
				this.reads.incrementAndGet();
			}
			Thread.yield();
			// Again on the way out: a caller let in meanwhile is inside now.
			check(document, writing);
		}
		finally {
			(writing ? this.writers : this.readers).decrementAndGet(document);
		}
	}

	int violations() {
		return this.violations.get();
	}

	int reads() {
		return this.reads.get();
	}

	private void check(int document, boolean writing) {
		if (this.writers.get(document) > (writing ? 1 : 0) || (writing && this.readers.get(document) > 0)) {
			this.violations.incrementAndGet();
		}
	}

}
