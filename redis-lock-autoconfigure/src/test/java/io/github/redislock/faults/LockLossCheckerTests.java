package io.github.redislock.faults;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.github.redislock.faults.LockLossHistory.Hold;
import io.github.redislock.faults.Nemesis.Fault;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lock-loss checker's rule for permits on made-up histories: it must catch more
 * holders than the limit, and excuse them only as it excuses overlapping locks.
 */
class LockLossCheckerTests {

	private static final long START = 1_700_000_000_000_000L;

	/** When the faults ended, in milliseconds: long after these holds. */
	private static final long HEALED = START / 1000 + 60_000;

	@Test
	void asManyPermitsAsTheLimitAtOnceAreFine() {
		List<Hold> holds = List.of(permit("a", 0, 1000, false), permit("b", 10, 1000, false));
		assertThat(new LockLossChecker(holds, List.of(), HEALED).check()).isEmpty();
	}

	@Test
	void oneHolderMoreThanTheLimitIsCaughtWhenNobodyWasTold() {
		List<Hold> holds = List.of(permit("a", 0, 1000, false), permit("b", 10, 1000, false),
				permit("c", 20, 1000, false));
		assertThat(new LockLossChecker(holds, List.of(), HEALED).check()).containsOnlyKeys("loss-untold");
	}

	@Test
	void oneHolderMoreIsCaughtWhenTheEarliestWasToldButNothingLostItsKey() {
		List<Hold> holds = List.of(permit("a", 0, 1000, true), permit("b", 10, 1000, false),
				permit("c", 20, 1000, false));
		assertThat(new LockLossChecker(holds, List.of(), HEALED).check()).containsOnlyKeys("overlap-without-cause");
	}

	@Test
	void oneHolderMoreIsExcusedWhenTheEarliestWasToldAndAFlushLostItsKey() {
		List<Hold> holds = List.of(permit("a", 0, 1000, true), permit("b", 10, 1000, false),
				permit("c", 20, 1000, false));
		Fault flush = new Fault("FLUSHALL", -1, true, true, (START + 15_000) / 1000, (START + 16_000) / 1000, "-");
		assertThat(new LockLossChecker(holds, List.of(flush), HEALED).check()).isEmpty();
	}

	/**
	 * A permit of name "x" granted {@code atMillis} after the start, held
	 * {@code forMillis}.
	 */
	private static Hold permit(String id, long atMillis, long forMillis, boolean told) {
		long granted = START + atMillis * 1000;
		return new Hold(id, "node-0", "x", "P", 0, "blocking", 1000, granted - 100, granted, granted + forMillis * 1000,
				granted + forMillis * 1000 + 100, "GRANTED", granted - 50, granted, told ? "LOST" : "OK", told, "-");
	}

}
