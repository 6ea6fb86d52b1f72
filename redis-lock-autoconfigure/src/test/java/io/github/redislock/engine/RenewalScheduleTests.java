package io.github.redislock.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The watchdog's schedule: what falls due when, and what it counts, drops and loses.
 */
class RenewalScheduleTests {

	private static final long TICK = 10;

	private static final long LEASE = TimeUnit.MILLISECONDS.toNanos(1);

	private static final long INTERVAL = 100;

	private final RenewalSchedule schedule = new RenewalSchedule(TICK, LEASE, INTERVAL, 0);

	@Test
	void leasesFallDueInTheTickTheyWereScheduledFor() {
		this.schedule.add(renewal("late"), 55);
		this.schedule.add(renewal("early"), 25);
		this.schedule.add(renewal("past"), -5);
		assertThat(drain()).containsExactly("past");
		this.schedule.advance(29);
		assertThat(drain()).containsExactly("early");
		this.schedule.advance(49);
		assertThat(drain()).isEmpty();
		this.schedule.advance(50);
		assertThat(drain()).containsExactly("late");
	}

	@Test
	void aWatchedLeaseIsDueARenewIntervalAfterItsGrantWasRequested() {
		this.schedule.watch(lease("held", 40));
		this.schedule.advance(139);
		assertThat(drain()).isEmpty();
		this.schedule.advance(140);
		assertThat(drain()).containsExactly("held");
	}

	@Test
	void sizeCountsScheduledAndDueLeasesUntilTaken() {
		this.schedule.add(renewal("a"), 0);
		this.schedule.add(renewal("b"), 30);
		this.schedule.add(renewal("c"), 60);
		assertThat(this.schedule.size()).isEqualTo(3);
		this.schedule.advance(30);
		assertThat(this.schedule.size()).isEqualTo(3);
		this.schedule.pollDue();
		this.schedule.pollDue();
		assertThat(this.schedule.size()).isEqualTo(1);
	}

	@Test
	void releasedLeasesAreDroppedOnceTheyOutnumberTheWatchedOnes() {
		List<LockLease> leases = IntStream.range(0, 2000).mapToObj((i) -> lease("lock-" + i, 0)).toList();
		leases.forEach(this.schedule::watch);
		this.schedule.advance(0);
		assertThat(this.schedule.size()).isEqualTo(2000);
		leases.subList(100, 2000).forEach(this.schedule::unwatch);
		this.schedule.advance(1);
		assertThat(this.schedule.size()).isEqualTo(100);
		assertThat(this.schedule.watchedCount()).isEqualTo(100);
		this.schedule.advance(INTERVAL);
		assertThat(drain()).hasSize(100);
	}

	@Test
	void aLeaseIsLostOnceAndAReleasedOneNever() {
		LockLease held = lease("held", 0);
		LockLease released = lease("released", 0);
		this.schedule.watch(held);
		this.schedule.watch(released);
		this.schedule.advance(INTERVAL);
		LeaseRenewal heldRenewal = this.schedule.pollDue();
		LeaseRenewal releasedRenewal = this.schedule.pollDue();
		this.schedule.unwatch(released);
		assertThat(this.schedule.lose(heldRenewal)).isTrue();
		assertThat(this.schedule.lose(heldRenewal)).isFalse();
		assertThat(this.schedule.lose(releasedRenewal)).isFalse();
		assertThat(held.isMarkedLost()).isTrue();
		assertThat(released.isMarkedLost()).isFalse();
		assertThat(this.schedule.watchedCount()).isZero();
	}

	private List<String> drain() {
		List<String> keys = new ArrayList<>();
		LeaseRenewal renewal;
		while ((renewal = this.schedule.pollDue()) != null) {
			keys.add(renewal.lease().key());
		}
		return keys;
	}

	private static LeaseRenewal renewal(String key) {
		return new LeaseRenewal(lease(key, 0));
	}

	private static LockLease lease(String key, long requestedAtNanos) {
		return new LockLease(LockKind.EXCLUSIVE, key, "owner:1", 1, TimeUnit.NANOSECONDS.toMillis(LEASE), true,
				requestedAtNanos);
	}

}
