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
	 * test passes in, each call recorded as a critical section: a writer's section that
	 * overlaps a reader's or another writer's counts a violation. Readers inside are
	 * counted too, for tests that wait for them.
	 */
	static class DocumentService {

		private final AtomicInteger readers = new AtomicInteger();

		private volatile CriticalSections sections = new CriticalSections();

		@DistributedLock(key = "doc:#id", mode = LockMode.READ, waitTime = "20s")
		public void read(long id, Runnable work) {
			CriticalSections sections = this.sections;
			CriticalSections.Section section = sections.enterShared("doc:" + id, this);
			this.readers.incrementAndGet();
			try {
				work.run();
			}
			finally {
				this.readers.decrementAndGet();
				sections.exit(section);
			}
		}

		@DistributedLock(key = "doc:#id", mode = LockMode.WRITE, waitTime = "20s")
		public void write(long id, Runnable work) {
			CriticalSections sections = this.sections;
			CriticalSections.Section section = sections.enter("doc:" + id, this, CurrentLock.fencingToken());
			try {
				work.run();
			}
			finally {
				sections.exit(section);
			}
		}

		public int readersInside() {
			return this.readers.get();
		}

		public int violations() {
			return this.sections.overlaps(true).size();
		}

		public void resetViolations() {
			this.sections = new CriticalSections();
		}

	}

}
