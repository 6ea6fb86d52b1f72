package io.github.redislock.engine;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The watchdog's timing wheel: what falls due when, and what it counts and drops.
 */
class RenewalScheduleTests {

	private static final long TICK = 10;

	@Test
	void itemsFallDueInTheTickTheyWereScheduledFor() {
		RenewalSchedule<String> schedule = new RenewalSchedule<>(TICK, 100, 0);
		schedule.add("late", 55);
		schedule.add("early", 25);
		schedule.add("past", -5);
		assertThat(drain(schedule)).containsExactly("past");
		schedule.advance(29);
		assertThat(drain(schedule)).containsExactly("early");
		schedule.advance(49);
		assertThat(drain(schedule)).isEmpty();
		schedule.advance(50);
		assertThat(drain(schedule)).containsExactly("late");
	}

	@Test
	void sizeCountsScheduledAndDueItemsUntilTaken() {
		RenewalSchedule<String> schedule = new RenewalSchedule<>(TICK, 100, 0);
		schedule.add("a", 0);
		schedule.add("b", 30);
		schedule.add("c", 60);
		assertThat(schedule.size()).isEqualTo(3);
		schedule.advance(30);
		assertThat(schedule.size()).isEqualTo(3);
		schedule.pollDue();
		schedule.pollDue();
		assertThat(schedule.size()).isEqualTo(1);
	}

	@Test
	void removeIfDropsMatchingItemsFromTheWheelAndTheDueQueue() {
		RenewalSchedule<String> schedule = new RenewalSchedule<>(TICK, 100, 0);
		schedule.add("keep-due", 0);
		schedule.add("drop-due", 0);
		schedule.add("keep-later", 40);
		schedule.add("drop-later", 40);
		schedule.add("drop-latest", 90);
		schedule.removeIf((item) -> item.startsWith("drop"));
		assertThat(schedule.size()).isEqualTo(2);
		schedule.advance(100);
		assertThat(drain(schedule)).containsExactly("keep-due", "keep-later");
		assertThat(schedule.size()).isZero();
	}

	private static List<String> drain(RenewalSchedule<String> schedule) {
		List<String> items = new ArrayList<>();
		String item;
		while ((item = schedule.pollDue()) != null) {
			items.add(item);
		}
		return items;
	}

}
