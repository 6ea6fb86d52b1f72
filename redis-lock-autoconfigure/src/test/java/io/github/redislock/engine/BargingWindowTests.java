package io.github.redislock.engine;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The barging window: a few turns of the line at the lock's measured hold time, within
 * its bounds.
 */
class BargingWindowTests {

	private static final long MICROS = TimeUnit.MICROSECONDS.toNanos(1);

	@Test
	void startsAtTheLowerBound() {
		assertThat(new BargingWindow().nanos()).isEqualTo(BargingWindow.MIN_NANOS);
	}

	@Test
	void lastsThreeTurnsOfTheLine() {
		BargingWindow window = new BargingWindow();
		window.released(200 * MICROS, 7);
		assertThat(window.nanos()).isEqualTo(3 * 7 * 200 * MICROS);
	}

	@Test
	void staysWithinItsBounds() {
		assertThat(BargingWindow.windowNanos(20 * MICROS, 7)).isEqualTo(BargingWindow.MIN_NANOS);
		assertThat(BargingWindow.windowNanos(0, 0)).isEqualTo(BargingWindow.MIN_NANOS);
		assertThat(BargingWindow.windowNanos(1_000 * MICROS, 50)).isEqualTo(BargingWindow.MAX_NANOS);
		assertThat(BargingWindow.windowNanos(Long.MAX_VALUE, Integer.MAX_VALUE)).isEqualTo(BargingWindow.MAX_NANOS);
	}

	@Test
	void followsTheLatestHoldsAndIgnoresUnknownOnes() {
		BargingWindow window = new BargingWindow();
		window.released(100 * MICROS, 8);
		for (int i = 0; i < 50; i++) {
			window.released(300 * MICROS, 8);
		}
		long settled = window.nanos();
		assertThat(settled).isBetween(3 * 8 * 290 * MICROS, 3 * 8 * 300 * MICROS);
		window.released(-1, 8);
		assertThat(window.nanos()).isEqualTo(settled);
	}

}
