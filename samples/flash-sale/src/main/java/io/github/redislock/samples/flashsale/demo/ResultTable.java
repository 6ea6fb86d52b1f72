package io.github.redislock.samples.flashsale.demo;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import java.util.OptionalLong;

/**
 * The demo's table of results, one row per run, and what to make of them.
 *
 * @author redis-lock
 */
final class ResultTable {

	private static final String ROW = "  %-8s %6s %9s %9s %9s %9s %9s %9s";

	private ResultTable() {
	}

	/**
	 * Print the table and a verdict on each row.
	 * @param out where to print
	 * @param stock the stock the unsafe and locked rounds started with
	 * @param unsafe the round without the lock
	 * @param locked the round with the lock
	 * @param paid the round with the lock and a payment for each sale
	 * @param paused the paused-holder run with plain writes
	 * @param fenced the paused-holder run with fenced writes
	 * @param lease the locks' fixed lease, as the instances were given it
	 */
	static void print(PrintStream out, int stock, LoadResult unsafe, LoadResult locked, PaidResult paid,
			PausedHolderResult paused, PausedHolderResult fenced, String lease) {
		line(out, "", "sold", "oversold", "rejected", "elapsed", "p50", "p99", "payments");
		row(out, "unsafe", stock, unsafe, "");
		row(out, "locked", stock, locked, "");
		row(out, "paid", stock, paid.load(), paid.peak() + " of " + paid.limit());
		row(out, "paused", PausedHolderRound.STOCK, paused.combined(), "");
		row(out, "fenced", PausedHolderRound.STOCK, fenced.combined(), "");
		out.println();
		int oversold = unsafe.oversold(stock);
		if (oversold > 0) {
			out.printf("  unsafe: %,d items sold that did not exist. Purchases on both instances read the same stock,%n"
					+ "          and each wrote it back one lower.%n", oversold);
		}
		else {
			out.printf("  unsafe: happened not to oversell this time; the race depends on timing. Run the demo again,%n"
					+ "          or widen the window with --flash-sale.think-time=20ms.%n");
		}
		if (locked.oversold(stock) == 0) {
			out.printf("  locked: oversold 0. Each purchase read, checked and wrote the stock holding the lock%n"
					+ "          product:1, whichever instance it reached; the others waited their turn.%n");
		}
		else {
			out.printf("  locked: oversold %,d. The lock failed to exclude concurrent purchases: please report it.%n",
					locked.oversold(stock));
		}
		paid(out, paid);
		paused(out, paused, lease);
		fenced(out, fenced);
		notes(out, "unsafe", unsafe, "the lock");
		notes(out, "locked", locked, "the lock");
		notes(out, "paid", paid.load(), "the lock or a payment permit");
		notes(out, "paused", paused.combined(), "the lock");
		notes(out, "fenced", fenced.combined(), "the lock");
	}

	private static void paid(PrintStream out, PaidResult paid) {
		if (paid.withinLimit()) {
			out.printf(
					"  paid:   the locked purchase, then a payment for each of the %,d sold: at most %d ran at once%n"
							+ "          across A and B, within the partner's limit of %d; the others waited for a permit of%n"
							+ "          @DistributedConcurrencyLimit(key = \"payment-gateway\").%n",
					paid.load().sold(), paid.peak(), paid.limit());
		}
		else {
			out.printf("  paid:   %d payments ran at once across A and B, over the limit of %d: the permits failed%n"
					+ "          to hold them back. Please report it.%n", paid.peak(), paid.limit());
		}
	}

	private static void paused(PrintStream out, PausedHolderResult paused, String lease) {
		int stock = PausedHolderRound.STOCK;
		int oversold = paused.combined().oversold(stock);
		out.printf(
				"  paused: A held product:1 and had read stock %d when its JVM was stopped (SIGSTOP) past the%n"
						+ "          lock's %s lease. B took the lock and sold %d; A, resumed, wrote back stock %d.%n",
				stock, lease, paused.whilePaused().sold(), stock - 1);
		String answer = switch (paused.heldStatus()) {
			case 500 -> "Its release then found the lock lost (HTTP 500): too late, the write had landed.";
			case 200 -> "It answered HTTP 200: nothing told it that the lock had gone.";
			default -> "It answered HTTP " + paused.heldStatus() + ": " + paused.heldBody();
		};
		out.printf("          %s%n", answer);
		if (oversold > 0) {
			out.printf("          %,d items sold that did not exist: the lock alone cannot stop a paused holder.%n",
					oversold);
		}
		else {
			out.printf("          Oversold 0 this time, against the odds: the stale write should have oversold.%n");
		}
	}

	private static void fenced(PrintStream out, PausedHolderResult fenced) {
		int oversold = fenced.combined().oversold(PausedHolderRound.STOCK);
		if (oversold == 0 && fenced.heldStatus() == 409) {
			out.printf(
					"  fenced: oversold 0. The same pause, the stock written with the lock's fencing token: Redis%n"
							+ "          refused A's write (StaleFencingTokenException, HTTP 409), its token %s%n"
							+ "          lower than B's %s.%n",
					token(fenced.heldToken()), token(fenced.highestToken()));
		}
		else {
			out.printf(
					"  fenced: oversold %,d, and A's purchase answered HTTP %d: %s%n"
							+ "          Fencing failed to refuse the stale write: please report it.%n",
					oversold, fenced.heldStatus(), fenced.heldBody());
		}
	}

	private static String token(OptionalLong token) {
		return token.isPresent() ? Long.toString(token.getAsLong()) : "?";
	}

	private static void row(PrintStream out, String label, int stock, LoadResult result, String payments) {
		line(out, label, count(result.sold()), count(result.oversold(stock)), count(result.rejected()),
				String.format(Locale.ROOT, "%.1f s", result.elapsed().toMillis() / 1000.0),
				millis(result.percentile(50)), millis(result.percentile(99)), payments);
	}

	private static void line(PrintStream out, Object... columns) {
		// Rows without payments end at p99, with no trailing blanks
		out.println(String.format(Locale.ROOT, ROW, columns).stripTrailing());
	}

	private static void notes(PrintStream out, String label, LoadResult result, String waitedFor) {
		if (result.busy() > 0) {
			out.printf("  %s: %,d of the rejected purchases gave up waiting for %s (HTTP 503)%n", label, result.busy(),
					waitedFor);
		}
		if (result.failed() > 0) {
			out.printf("  %s: %,d purchases failed, the first with %s%n", label, result.failed(),
					result.firstFailure());
		}
	}

	private static String count(int value) {
		return String.format(Locale.ROOT, "%,d", value);
	}

	private static String millis(Duration duration) {
		double millis = duration.toNanos() / 1_000_000.0;
		return String.format(Locale.ROOT, (millis < 10) ? "%.1f ms" : "%.0f ms", millis);
	}

}
