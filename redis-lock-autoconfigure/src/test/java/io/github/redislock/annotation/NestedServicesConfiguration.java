package io.github.redislock.annotation;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.github.redislock.DistributedLock;
import io.github.redislock.DistributedLock.OnFailure;

/**
 * Beans whose locked methods call other locked methods: of another bean, of the same lock
 * (a reentry), and of themselves (not intercepted); and locked methods that return
 * futures.
 */
@Configuration(proxyBeanMethods = false)
class NestedServicesConfiguration {

	@Bean
	InnerService innerService(LockProbe probe) {
		return new InnerService(probe);
	}

	@Bean
	OuterService outerService(InnerService inner, LockProbe probe) {
		return new OuterService(inner, probe);
	}

	@Bean
	AsyncService asyncService() {
		return new AsyncService();
	}

	static class InnerService {

		private final LockProbe probe;

		InnerService(LockProbe probe) {
			this.probe = probe;
		}

		@DistributedLock("inner")
		public void inner() {
			this.probe.record();
		}

		@DistributedLock(key = "shared", waitTime = "0")
		public void reenter() {
			this.probe.record();
		}

	}

	static class OuterService {

		private final InnerService inner;

		private final LockProbe probe;

		private final List<Set<String>> heldAfterInner = new CopyOnWriteArrayList<>();

		OuterService(InnerService inner, LockProbe probe) {
			this.inner = inner;
			this.probe = probe;
		}

		public List<Set<String>> heldAfterInner() {
			return this.heldAfterInner;
		}

		@DistributedLock("outer")
		public void nested() {
			this.inner.inner();
			this.heldAfterInner.add(this.probe.held());
		}

		@DistributedLock("shared")
		public void reentrant() {
			this.inner.reenter();
			this.heldAfterInner.add(this.probe.held());
		}

		@DistributedLock("self")
		public void callsItself() {
			this.selfInvoked();
		}

		@DistributedLock(key = "self-invoked", waitTime = "0")
		public void selfInvoked() {
			this.heldAfterInner.add(this.probe.held());
		}

	}

	static class AsyncService {

		@DistributedLock("job:#id")
		public CompletableFuture<String> start(String id, CompletableFuture<String> work) {
			return work;
		}

		@DistributedLock(key = "job:#id", waitTime = "0", onFailure = OnFailure.SKIP)
		public CompletableFuture<Optional<String>> startOrSkip(String id, CompletableFuture<Optional<String>> work) {
			return work;
		}

		@DistributedLock("job:#id")
		public CompletableFuture<String> failToStart(String id) {
			throw new IllegalStateException("no executor");
		}

	}

}
