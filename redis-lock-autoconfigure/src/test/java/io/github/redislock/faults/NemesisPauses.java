package io.github.redislock.faults;

import java.util.List;

import io.github.redislock.test.RedisCli;

/**
 * Chooses which node JVM the nemesis pauses: one with a thread inside a critical section
 * now, so that the pause catches a holder.
 */
final class NemesisPauses {

	private NemesisPauses() {
	}

	/**
	 * @param control the control Redis, which holds the resource's critical sections
	 * @param nodes how many nodes there are
	 * @param drawn the node drawn from the schedule, taken when none holds a hot lock
	 * @return the index of the node to pause
	 */
	static int holdingNode(RedisCli control, int nodes, int drawn) {
		for (NemesisSettings.HotKey key : NemesisSettings.HOT_KEYS) {
			List<?> inside = (List<?>) control.command("HKEYS", "fenced:{" + key.name() + "}:inside");
			for (Object holdId : inside) {
				String id = (String) holdId;
				int node = Integer.parseInt(id.substring(1, id.indexOf('-'))) - 1;
				if (node >= 0 && node < nodes) {
					return node;
				}
			}
		}
		return drawn;
	}

}
