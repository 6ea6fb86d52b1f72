package io.github.redislock.samples.flashsale.demo;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;

/**
 * The demo's table of results, one row per endpoint, and what to make of them.
 *
 * @author redis-lock
 */
final class ResultTable {

	private static final String ROW = "  %-8s %6s %9s %9s %9s %9s %9s%n";

	private ResultTable() {
	}

	/**
	 * Print the table and a verdict on each row.
	 * @param out where to print
	 * @param stock the stock each round started with
	 * @param unsafe the round without the lock
	 * @param locked the round with the lock
	 */
	static void print(PrintStream out, int stock, LoadResult unsafe, LoadResult locked) {
		out.printf(ROW, "", "sold", "oversold", "rejected", "elapsed", "p50", "p99");
		row(out, "unsafe", stock, unsafe);
		row(out, "locked", stock, locked);
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
		notes(out, "unsafe", unsafe);
		notes(out, "locked", locked);
	}

	private static void row(PrintStream out, String label, int stock, LoadResult result) {
		out.printf(ROW, label, count(result.sold()), count(result.oversold(stock)), count(result.rejected()),
				String.format(Locale.ROOT, "%.1f s", result.elapsed().toMillis() / 1000.0),
				millis(result.percentile(50)), millis(result.percentile(99)));
	}

	private static void notes(PrintStream out, String label, LoadResult result) {
		if (result.busy() > 0) {
			out.printf("  %s: %,d of the rejected purchases gave up waiting for the lock (HTTP 503)%n", label,
					result.busy());
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
