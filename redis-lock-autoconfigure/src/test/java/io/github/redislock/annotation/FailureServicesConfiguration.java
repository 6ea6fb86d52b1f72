package io.github.redislock.annotation;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.github.redislock.DistributedLock;
import io.github.redislock.DistributedLock.OnFailure;
import io.github.redislock.annotation.KeyFormServicesConfiguration.User;

/**
 * A bean for the failure strategies, the exception path and wait time resolution of
 * {@link DistributedLock @DistributedLock}.
 */
@Configuration(proxyBeanMethods = false)
class FailureServicesConfiguration {

	@Bean
	FailureService failureService(LockProbe probe) {
		return new FailureService(probe);
	}

	/**
	 * Methods for the failure strategies, the exception path and wait time resolution.
	 */
	static class FailureService {

		private final LockProbe probe;

		private final AtomicInteger runs = new AtomicInteger();

		FailureService(LockProbe probe) {
			this.probe = probe;
		}

		public int runs() {
			return this.runs.get();
		}

		public void resetRuns() {
			this.runs.set(0);
		}

		@DistributedLock(key = "report:#id", waitTime = "0")
		public String throwing(long id) {
			this.runs.incrementAndGet();
			return "ran";
		}

		@DistributedLock(key = "report:#id", waitTime = "${locks.short-wait}")
		public String placeholderWait(long id) {
			this.runs.incrementAndGet();
			return "ran";
		}

		@DistributedLock(key = "report:#id", waitTime = "0", onFailure = OnFailure.SKIP)
		public String skipping(long id) {
			this.runs.incrementAndGet();
			return "ran";
		}

		@DistributedLock(key = "report:#id", waitTime = "0", onFailure = OnFailure.SKIP)
		public Optional<String> skippingOptional(long id) {
			this.runs.incrementAndGet();
			return Optional.of("ran");
		}

		@DistributedLock(key = "report:#id", waitTime = "0", onFailure = OnFailure.FALLBACK,
				fallback = "reportFallback")
		public String withFallback(long id) {
			this.runs.incrementAndGet();
			return "ran";
		}

		private String reportFallback(long id) {
			return "fallback for " + id;
		}

		@DistributedLock("fail:#id")
		public void failing(long id, RuntimeException failure) {
			this.probe.record();
			throw failure;
		}

		@DistributedLock("user:#user.name")
		public void userName(User user) {
			this.runs.incrementAndGet();
		}

	}

}
