package io.github.redislock.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import io.github.redislock.LockObserver;
import io.github.redislock.LockObserver.AcquireOutcome;
import io.github.redislock.LockObserver.ReleaseOutcome;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link CompositeLockObserver}.
 */
class CompositeLockObserverTests {

	@Test
	void noObserverIsNone() {
		assertThat(CompositeLockObserver.of(List.of())).isNull();
	}

	@Test
	void singleObserverIsItself() {
		Recording observer = new Recording("a");
		assertThat(CompositeLockObserver.of(List.of(observer))).isSameAs(observer);
	}

	@Test
	void eachObserverGetsItsOwnContextsBack() {
		Recording first = new Recording("a");
		Recording second = new Recording("b");
		LockObserver composite = CompositeLockObserver.of(List.of(first, second));
		Object acquire = composite.acquireStarted("order:1", "Orders.pay");
		composite.acquireEnded("order:1", acquire, AcquireOutcome.ACQUIRED, 5, null);
		Object hold = composite.held("order:1", "Orders.pay", 7, acquire);
		composite.renewed("order:1", hold);
		composite.renewalFailed("order:1", hold, new IllegalStateException());
		composite.lost("order:1", 7, hold);
		composite.released("order:1", hold, ReleaseOutcome.LOST, null);
		composite.released("order:2", null, ReleaseOutcome.RELEASED, null);
		assertThat(first.calls).containsExactly("acquireEnded a-acquire", "held a-acquire", "renewed a-hold",
				"renewalFailed a-hold", "lost a-hold", "released a-hold", "released null");
		assertThat(second.calls).containsExactly("acquireEnded b-acquire", "held b-acquire", "renewed b-hold",
				"renewalFailed b-hold", "lost b-hold", "released b-hold", "released null");
	}

	static class Recording implements LockObserver {

		final List<String> calls = new ArrayList<>();

		private final String id;

		Recording(String id) {
			this.id = id;
		}

		@Override
		public Object acquireStarted(String key, @Nullable String name) {
			return this.id + "-acquire";
		}

		@Override
		public void acquireEnded(String key, @Nullable Object context, AcquireOutcome outcome, long waitNanos,
				@Nullable Throwable failure) {
			this.calls.add("acquireEnded " + context);
		}

		@Override
		public Object held(String key, @Nullable String name, long fencingToken, @Nullable Object acquireContext) {
			this.calls.add("held " + acquireContext);
			return this.id + "-hold";
		}

		@Override
		public void released(String key, @Nullable Object holdContext, ReleaseOutcome outcome,
				@Nullable Throwable failure) {
			this.calls.add("released " + holdContext);
		}

		@Override
		public void renewed(String key, @Nullable Object holdContext) {
			this.calls.add("renewed " + holdContext);
		}

		@Override
		public void renewalFailed(String key, @Nullable Object holdContext, Throwable failure) {
			this.calls.add("renewalFailed " + holdContext);
		}

		@Override
		public void lost(String key, long fencingToken, @Nullable Object holdContext) {
			this.calls.add("lost " + holdContext);
		}

	}

}
