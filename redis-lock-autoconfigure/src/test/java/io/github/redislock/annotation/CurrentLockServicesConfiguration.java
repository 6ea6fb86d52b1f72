package io.github.redislock.annotation;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.github.redislock.CurrentLock;
import io.github.redislock.DistributedLock;
import io.github.redislock.LockHandle;

/**
 * Beans whose locked methods read their lock through {@link CurrentLock}: one key,
 * several keys, nested calls, a failure and a returned future. Each records what it saw
 * as {@code key=token} (or {@code none} where no lock was current).
 */
@Configuration(proxyBeanMethods = false)
class CurrentLockServicesConfiguration {

	@Bean
	TokenService tokenService() {
		return new TokenService();
	}

	@Bean
	NestingTokenService nestingTokenService(TokenService inner) {
		return new NestingTokenService(inner);
	}

	static String current() {
		if (!CurrentLock.isPresent()) {
			return "none";
		}
		LockHandle handle = CurrentLock.handle();
		return handle.key() + "=" + handle.fencingToken() + (handle.isHeld() ? "" : " (not held)");
	}

	static class TokenService {

		private final List<String> seen = new CopyOnWriteArrayList<>();

		public List<String> seen() {
			return this.seen;
		}

		@DistributedLock("product:#id")
		public long token(long id) {
			this.seen.add(current());
			return CurrentLock.fencingToken();
		}

		@DistributedLock({ "account:#from", "account:#to" })
		public List<Long> transfer(long from, long to) {
			return List.of(CurrentLock.fencingToken("account:" + from), CurrentLock.fencingToken("account:" + to));
		}

		@DistributedLock({ "account:#from", "account:#to" })
		public LockHandle single(long from, long to) {
			return CurrentLock.handle();
		}

		@DistributedLock({ "account:#from", "account:#to" })
		public LockHandle unknown(long from, long to, String key) {
			return CurrentLock.handle(key);
		}

		@DistributedLock("failing")
		public void fail() {
			this.seen.add(current());
			throw new IllegalStateException("boom");
		}

		@DistributedLock("job:#id")
		public CompletableFuture<String> start(String id, Executor executor) {
			this.seen.add(current());
			return CompletableFuture.supplyAsync(CurrentLockServicesConfiguration::current, executor);
		}

	}

	static class NestingTokenService {

		private final TokenService inner;

		private final List<String> seen = new CopyOnWriteArrayList<>();

		public List<String> seen() {
			return this.seen;
		}

		NestingTokenService(TokenService inner) {
			this.inner = inner;
		}

		@DistributedLock("order:#id")
		public void nested(long id) {
			this.seen.add(current());
			this.inner.token(id);
			this.seen.add(current());
		}

		@DistributedLock("product:#id")
		public void reentrant(long id) {
			this.seen.add(current());
			this.inner.token(id);
			this.seen.add(current());
		}

		@DistributedLock("order:#id")
		public void survivesInnerFailure(long id) {
			try {
				this.inner.fail();
			}
			catch (IllegalStateException ex) {
				this.seen.add(current());
			}
		}

	}

}
