package io.github.redislock.engine;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Due renewals that outnumber the window's room wait for room for half a batch, but only
 * briefly.
 */
class RenewalPacingTests {

	private static final long MILLIS = TimeUnit.MILLISECONDS.toNanos(1);

	private static final long INTERVAL = TimeUnit.SECONDS.toNanos(10);

	private final RenewalPacing pacing = new RenewalPacing(1000, INTERVAL);

	@Test
	void sendsAtOnceWhatFitsInTheRoom() {
		assertThat(this.pacing.holdBack(100, 100, 0)).isFalse();
		assertThat(this.pacing.holdBack(1000, 5, 0)).isFalse();
	}

	@Test
	void sendsAtOnceWhenHalfABatchFits() {
		assertThat(this.pacing.holdBack(500, 30_000, 0)).isFalse();
	}

	@Test
	void waitsForRoomForHalfABatchWhileMoreAreDue() {
		assertThat(this.pacing.holdBack(100, 30_000, 0)).isTrue();
		assertThat(this.pacing.holdBack(300, 30_000, MILLIS)).isTrue();
		assertThat(this.pacing.holdBack(600, 30_000, 2 * MILLIS)).isFalse();
	}

	@Test
	void waitsNoLongerThanItsBoundFromTheFirstHoldBack() {
		long start = 5 * MILLIS;
		assertThat(this.pacing.holdBack(100, 30_000, start)).isTrue();
		assertThat(this.pacing.holdBack(100, 30_000, start + 9 * MILLIS)).isTrue();
		assertThat(this.pacing.holdBack(100, 30_000, start + 10 * MILLIS)).isFalse();
		// The next wait counts from its own start.
		assertThat(this.pacing.holdBack(100, 30_000, start + 11 * MILLIS)).isTrue();
		assertThat(this.pacing.holdBack(100, 30_000, start + 20 * MILLIS)).isTrue();
		assertThat(this.pacing.holdBack(100, 30_000, start + 21 * MILLIS)).isFalse();
	}

	@Test
	void aSendStartsTheNextWaitAfresh() {
		assertThat(this.pacing.holdBack(100, 30_000, 0)).isTrue();
		assertThat(this.pacing.holdBack(700, 30_000, 9 * MILLIS)).isFalse();
		assertThat(this.pacing.holdBack(100, 30_000, 12 * MILLIS)).isTrue();
		assertThat(this.pacing.holdBack(100, 30_000, 21 * MILLIS)).isTrue();
	}

	@Test
	void aShortRenewIntervalShortensTheWait() {
		RenewalPacing pacing = new RenewalPacing(1000, 300 * MILLIS);
		assertThat(pacing.holdBack(100, 30_000, 0)).isTrue();
		assertThat(pacing.holdBack(100, 30_000, 3 * MILLIS)).isFalse();
	}

	@Test
	void aWindowWithNoRoomWaitsTheSameBoundedTime() {
		assertThat(this.pacing.holdBack(0, 30_000, 0)).isTrue();
		assertThat(this.pacing.holdBack(-5, 30_000, 10 * MILLIS)).isFalse();
	}

}
