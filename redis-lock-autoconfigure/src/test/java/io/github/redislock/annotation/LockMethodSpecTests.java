package io.github.redislock.annotation;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.util.ReflectionUtils;

import io.github.redislock.DistributedLock;
import io.github.redislock.LockHandle;
import io.github.redislock.LockMode;
import io.github.redislock.LockOperations;
import io.github.redislock.LockRequest;
import io.github.redislock.LockRules;
import io.github.redislock.LockRules.Violation;
import io.github.redislock.annotation.LockKeyEvaluator.LockKey;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests of the {@link LockRequest LockRequests} that {@link LockMethodSpec} and
 * {@link DistributedLockInterceptor} build from a
 * {@link DistributedLock @DistributedLock} declaration, without Redis: what reaches
 * {@link LockOperations} is all that matters here.
 */
class LockMethodSpecTests {

	private final LockMethodSpec.Cache specs = new LockMethodSpec.Cache(LockKeyEvaluator::new);

	@Test
	void defaultRequestIsExclusiveAndNotFair() {
		LockRequest request = request("plain");
		assertThat(request.mode()).isEqualTo(LockMode.EXCLUSIVE);
		assertThat(request.isFair()).isFalse();
	}

	@Test
	void readModeReachesTheRequest() {
		LockRequest request = request("read");
		assertThat(request.mode()).isEqualTo(LockMode.READ);
		assertThat(request.isFair()).isFalse();
	}

	@Test
	void writeModeReachesTheRequest() {
		assertThat(request("write").mode()).isEqualTo(LockMode.WRITE);
	}

	@Test
	void fairReachesTheRequest() {
		LockRequest request = request("fair");
		assertThat(request.isFair()).isTrue();
		assertThat(request.mode()).isEqualTo(LockMode.EXCLUSIVE);
	}

	@Test
	void modeKeepsOtherAttributesAndTheObservationName() {
		LockRequest request = this.specs.get(method("timedWrite"), Documents.class)
			.request("doc:1", Duration.ofSeconds(2));
		assertThat(request.mode()).isEqualTo(LockMode.WRITE);
		assertThat(request.waitTime()).isEqualTo(Duration.ofSeconds(2));
		assertThat(request.leaseTime()).isEqualTo(Duration.ofSeconds(5));
		assertThat(request.name()).isEqualTo("Documents.timedWrite");
	}

	@Test
	void everyKeyOfASeveralKeyMethodGetsTheModeThroughTheInterceptor() {
		RecordingLockOperations locks = new RecordingLockOperations();
		Documents proxy = proxy(locks);
		proxy.readSeveral(7);
		assertThat(locks.requests).extracting(LockRequest::key).containsExactly("a:7", "b:7");
		assertThat(locks.requests).extracting(LockRequest::mode).containsOnly(LockMode.READ);
		assertThat(locks.requests).extracting(LockRequest::name).containsOnly("Documents.readSeveral");
	}

	@Test
	void everyKeyOfASeveralKeyMethodIsFairThroughTheInterceptor() {
		RecordingLockOperations locks = new RecordingLockOperations();
		proxy(locks).fairSeveral(8);
		assertThat(locks.requests).extracting(LockRequest::key).containsExactly("x:8", "y:8");
		assertThat(locks.requests).extracting(LockRequest::isFair).containsOnly(true);
		assertThat(locks.requests).extracting(LockRequest::mode).containsOnly(LockMode.EXCLUSIVE);
	}

	@Test
	void keyTemplateIsParsedOncePerMethodHoweverOftenCalled() {
		CountingKeyEvaluator evaluator = new CountingKeyEvaluator();
		LockMethodSpec.Cache specs = new LockMethodSpec.Cache(() -> evaluator);
		specs.validate(Documents.class);
		assertThat(evaluator.parsed).hasSize(9);
		evaluator.parsed.clear();
		RecordingLockOperations locks = new RecordingLockOperations();
		ProxyFactory factory = new ProxyFactory(new Documents());
		factory.setProxyTargetClass(true);
		factory.addAdvice(new DistributedLockInterceptor(specs, () -> evaluator, () -> locks, null));
		Documents proxy = (Documents) factory.getProxy();
		for (int i = 0; i < 50; i++) {
			proxy.readSeveral(i);
			proxy.read(i);
			assertThat(specs.get(method("readSeveral"), Documents.class)).isNotNull();
		}
		assertThat(locks.requests).hasSize(150);
		assertThat(evaluator.parsed).isEmpty();
	}

	@Test
	void keyTemplateIsParsedOnFirstUseWhenNotValidatedBefore() {
		CountingKeyEvaluator evaluator = new CountingKeyEvaluator();
		LockMethodSpec.Cache specs = new LockMethodSpec.Cache(() -> evaluator);
		for (int i = 0; i < 50; i++) {
			specs.get(method("readSeveral"), Documents.class);
		}
		assertThat(evaluator.parsed).containsExactly("b:#id", "a:#id");
	}

	@Test
	void fairReadLockGivesTheSameProblemAsTheApi() {
		Violation violation = LockRules.fairMode(true, LockMode.READ);
		Method method = ReflectionUtils.findMethod(FairRead.class, "load", long.class);
		assertThatExceptionOfType(LockConfigurationException.class)
			.isThrownBy(() -> this.specs.get(method, FairRead.class))
			.satisfies((ex) -> {
				assertThat(ex.getMethod()).isEqualTo(method);
				assertThat(ex.getProblem()).isEqualTo("fair = true " + violation.problem());
				assertThat(ex.getAction()).isEqualTo(violation.action());
			});
		assertThatIllegalArgumentException().isThrownBy(() -> LockRequest.read("doc:1").fair(true))
			.withMessage(violation.message("Fair ordering of lock 'doc:1'"));
	}

	@Test
	void negativeWaitTimeGivesTheSameProblemAsTheApi() {
		Violation violation = LockRules.waitTime(Duration.ofSeconds(-1));
		Method method = ReflectionUtils.findMethod(NegativeWait.class, "run");
		assertThatExceptionOfType(LockConfigurationException.class)
			.isThrownBy(() -> this.specs.get(method, NegativeWait.class))
			.satisfies((ex) -> assertThat(ex.getProblem()).isEqualTo("waitTime = \"-1s\" " + violation.problem()));
		assertThatIllegalArgumentException().isThrownBy(() -> LockRequest.of("x").waitTime(Duration.ofSeconds(-1)))
			.withMessage(violation.message("waitTime"));
	}

	private LockRequest request(String methodName) {
		LockMethodSpec spec = this.specs.get(method(methodName), Documents.class);
		assertThat(spec).isNotNull();
		return spec.request("doc:1", null);
	}

	private static Method method(String name) {
		Method method = ReflectionUtils.findMethod(Documents.class, name, (Class<?>[]) null);
		assertThat(method).isNotNull();
		return method;
	}

	private Documents proxy(LockOperations locks) {
		ProxyFactory factory = new ProxyFactory(new Documents());
		factory.setProxyTargetClass(true);
		factory.addAdvice(new DistributedLockInterceptor(this.specs, LockKeyEvaluator::new, () -> locks, null));
		return (Documents) factory.getProxy();
	}

	static class Documents {

		@DistributedLock("plain")
		public void plain() {
		}

		@DistributedLock(key = "doc:#id", mode = LockMode.READ)
		public void read(long id) {
		}

		@DistributedLock(key = "doc:#id", mode = LockMode.WRITE)
		public void write(long id) {
		}

		@DistributedLock(key = "doc:#id", fair = true)
		public void fair(long id) {
		}

		@DistributedLock(key = "doc:#id", mode = LockMode.WRITE, waitTime = "2s", leaseTime = "5s")
		public void timedWrite(long id) {
		}

		@DistributedLock(key = { "b:#id", "a:#id" }, mode = LockMode.READ)
		public void readSeveral(long id) {
		}

		@DistributedLock(key = { "y:#id", "x:#id" }, fair = true)
		public void fairSeveral(long id) {
		}

	}

	static class FairRead {

		@DistributedLock(key = "doc:#id", mode = LockMode.READ, fair = true)
		public void load(long id) {
		}

	}

	static class NegativeWait {

		@DistributedLock(waitTime = "-1s")
		public void run() {
		}

	}

	/**
	 * Counts the key templates parsed, which the method specs should do once each.
	 */
	static class CountingKeyEvaluator extends LockKeyEvaluator {

		final List<String> parsed = new CopyOnWriteArrayList<>();

		@Override
		LockKey parse(String template, Method method, Class<?> targetClass) {
			this.parsed.add(template);
			return super.parse(template, method, targetClass);
		}

	}

	/**
	 * Records the requests and grants each at once: the test is about what the
	 * interceptor asks for, which no lock server could show as directly.
	 */
	static class RecordingLockOperations implements LockOperations {

		final List<LockRequest> requests = new CopyOnWriteArrayList<>();

		@Override
		public <T> T execute(LockRequest request, Supplier<T> action) {
			throw new UnsupportedOperationException("the interceptor locks with lock(LockRequest)");
		}

		@Override
		public Optional<LockHandle> tryLock(LockRequest request) {
			throw new UnsupportedOperationException("the interceptor locks with lock(LockRequest)");
		}

		@Override
		public Optional<Duration> remainingLease(String key) {
			throw new UnsupportedOperationException("the interceptor locks with lock(LockRequest)");
		}

		@Override
		public LockHandle lock(LockRequest request) {
			this.requests.add(request);
			return new LockHandle() {

				@Override
				public String key() {
					return request.key();
				}

				@Override
				public long fencingToken() {
					return 1;
				}

				@Override
				public boolean isHeld() {
					return true;
				}

				@Override
				public void extend(Duration leaseTime) {
				}

				@Override
				public void close() {
				}

			};
		}

	}

}
