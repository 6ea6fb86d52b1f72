package io.github.redislock.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * Applies faults to the nemesis test's system one after another, from a schedule drawn
 * from a seed: each of the {@link Faults faults'} kinds once per round in a shuffled
 * order (some kinds more than once), with random gaps; at least one round, then rounds
 * until the duration has passed. Records when each fault began and ended, and heals
 * everything at the end.
 */
final class Nemesis {

	private final Random random;

	private final Faults faults;

	private final List<Fault> applied = new ArrayList<>();

	Nemesis(long seed, Faults faults) {
		this.random = new Random(seed);
		this.faults = faults;
	}

	/**
	 * Applies faults until the duration has passed, then heals everything.
	 * @param duration how long to go on
	 * @return the faults applied, in order
	 */
	List<Fault> run(Duration duration) throws InterruptedException {
		long deadline = System.currentTimeMillis() + duration.toMillis();
		List<String> deck = new ArrayList<>();
		int firstRound = this.faults.round().size();
		String current = null;
		try {
			// At least one whole round, so that even a short run has every kind of fault.
			while (this.applied.size() < firstRound || System.currentTimeMillis() < deadline) {
				if (deck.isEmpty()) {
					deck.addAll(this.faults.round());
					Collections.shuffle(deck, this.random);
				}
				Thread.sleep(300 + this.random.nextInt(1200));
				long start = System.currentTimeMillis();
				current = deck.remove(0);
				Fault fault = this.faults.apply(current, this.random);
				this.applied.add(fault.from(start));
				current = null;
			}
		}
		catch (RuntimeException ex) {
			// The fault's failure is the one to report; a heal that fails as well is
			// added to it rather than thrown in its place.
			IllegalStateException failure = new IllegalStateException("The nemesis failed while applying " + current
					+ " after " + this.applied.subList(Math.max(0, this.applied.size() - 5), this.applied.size()), ex);
			try {
				this.faults.heal();
			}
			catch (RuntimeException healing) {
				failure.addSuppressed(healing);
			}
			throw failure;
		}
		this.faults.heal();
		return this.applied;
	}

	/** Name of the node at an index, as the nodes call themselves. */
	static String nodeName(int index) {
		return "n" + (index + 1);
	}

	/** The faults of one kind of system. */
	interface Faults {

		/** The kinds of fault of one round, a kind listed twice applied twice. */
		List<String> round();

		/**
		 * Applies a fault and heals it.
		 * @param kind one of the kinds of {@link #round()}
		 * @param random where every random choice comes from, in the same order for the
		 * same kind
		 * @return what was done, its start time to be set by the caller
		 */
		Fault apply(String kind, Random random) throws InterruptedException;

		/** Ends every fault. */
		void heal();

	}

	/**
	 * A fault as applied.
	 *
	 * @param kind the kind
	 * @param node the index of the node it hit, or -1 for all (Redis itself)
	 * @param lapsing whether a lease may run out, or a lock vanish, because of it with no
	 * bug
	 * @param dataLoss whether Redis may lose locks because of it, so that one may be
	 * granted twice across it
	 * @param startMillis when it began
	 * @param endMillis when it was healed
	 * @param detail what exactly was done
	 */
	record Fault(String kind, int node, boolean lapsing, boolean dataLoss, long startMillis, long endMillis,
			String detail) {

		static Fault of(String kind, int node, boolean lapsing, boolean dataLoss, String detail) {
			return new Fault(kind, node, lapsing, dataLoss, 0, System.currentTimeMillis(), detail);
		}

		Fault from(long startMillis) {
			return new Fault(this.kind, this.node, this.lapsing, this.dataLoss, startMillis, this.endMillis,
					this.detail);
		}

		boolean hits(String nodeName) {
			return this.node < 0 || nodeName(this.node).equals(nodeName);
		}

		/** Whether the fault, extended by some time after it, overlaps the interval. */
		boolean overlaps(long fromMillis, long toMillis, long afterMillis) {
			return this.startMillis <= toMillis && this.endMillis + afterMillis >= fromMillis;
		}

		/** Whether the fault cut connections while many commands were in flight. */
		boolean cuts() {
			return this.kind.equals("RESET") || this.kind.equals("END") || this.kind.equals("KILL-CLIENTS");
		}

		@Override
		public String toString() {
			return this.kind + " " + ((this.node < 0) ? "all" : nodeName(this.node)) + " [" + this.startMillis + " -> "
					+ this.endMillis + "] " + this.detail;
		}

	}

}
