package io.github.redislock.annotation;

import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.github.redislock.CurrentLock;
import io.github.redislock.DistributedLock;
import io.github.redislock.LockMode;
import io.github.redislock.contract.CriticalSections;

/**
 * Beans that detect overlapping calls: a counter that only a working exclusive lock keeps
 * exact, and a document with read and write methods of one read/write lock.
 */
@Configuration(proxyBeanMethods = false)
class ConcurrentServicesConfiguration {

	@Bean
	CounterService counterService() {
		return new CounterService();
	}

	@Bean
	DocumentService documentService() {
		return new DocumentService();
	}

	/**
	 * The overlap detector: entries that find another call inside, and a counter
	 * incremented without atomicity, which only a working lock keeps exact.
	 */
	static class CounterService {

		private final CriticalSections sections = new CriticalSections();

		private volatile int unsafeCount;

		@DistributedLock(key = "counter", waitTime = "20s")
		public void increment() {
			CriticalSections.Section section = this.sections.enter("counter", this, CurrentLock.fencingToken());
			int value = this.unsafeCount;
			Thread.yield();
			this.unsafeCount = value + 1;
			this.sections.exit(section);
		}

		// Read through the proxy, so public: a CGLIB proxy has fields of its own.
		public int count() {
			return this.unsafeCount;
		}

		public int overlaps() {
			return this.sections.overlaps(true).size();
		}

	}

	/**
	 * Read and write methods of one read/write lock per document, each running work the
	 * test passes in, with an overlap detector: a writer that finds anyone else inside,
	 * or a reader that finds a writer inside, counts a violation.
	 */
	static class DocumentService {

		private final AtomicInteger readers = new AtomicInteger();

		private final AtomicInteger writers = new AtomicInteger();

		private final AtomicInteger violations = new AtomicInteger();

		@DistributedLock(key = "doc:#id", mode = LockMode.READ, waitTime = "20s")
		public void read(long id, Runnable work) {
			this.readers.incrementAndGet();
			if (this.writers.get() > 0) {
				this.violations.incrementAndGet();
			}
			try {
				work.run();
			}
			finally {
				this.readers.decrementAndGet();
			}
		}

		@DistributedLock(key = "doc:#id", mode = LockMode.WRITE, waitTime = "20s")
		public void write(long id, Runnable work) {
			if (this.writers.incrementAndGet() > 1 || this.readers.get() > 0) {
				this.violations.incrementAndGet();
			}
			try {
				work.run();
				// Checked again on the way out: a reader let in meanwhile is inside now.
				if (this.writers.get() > 1 || this.readers.get() > 0) {
					this.violations.incrementAndGet();
				}
			}
			finally {
				this.writers.decrementAndGet();
			}
		}

		public int readersInside() {
			return this.readers.get();
		}

		public int violations() {
			return this.violations.get();
		}

		public void resetViolations() {
			this.violations.set(0);
		}

	}

}
