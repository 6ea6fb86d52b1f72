package io.github.redislock.samples.flashsale.demo;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What came of the paid round: the locked purchases, each sale followed by a payment, and
 * the most payments that ran at once across both instances.
 *
 * @param load the purchases' answers
 * @param limit how many payments the instances let run at once
 * @param peak the most payments that ran at once, as the payment service counted them
 * @author redis-lock
 */
record PaidResult(LoadResult load, int limit, long peak) {

	private static final Pattern LIMIT = Pattern.compile("\"limit\"\\s*:\\s*(\\d+)");

	private static final Pattern PEAK = Pattern.compile("\"peak\"\\s*:\\s*(\\d+)");

	/**
	 * Read the limit and the peak from the answer of {@code GET /payments}.
	 * @param load the purchases' answers
	 * @param payments the body of {@code GET /payments}, such as
	 * {@code {"limit":3,"inFlight":0,"peak":3}}
	 * @return the result
	 * @throws IllegalStateException when the body lacks the limit or the peak
	 */
	static PaidResult of(LoadResult load, String payments) {
		return new PaidResult(load, (int) number(LIMIT, payments), number(PEAK, payments));
	}

	private static long number(Pattern pattern, String payments) {
		Matcher matcher = pattern.matcher(payments);
		if (!matcher.find()) {
			throw new IllegalStateException("GET /payments answered " + payments + ", without " + pattern.pattern()
					+ "; is the instance a build of this sample?");
		}
		return Long.parseLong(matcher.group(1));
	}

	/**
	 * Return whether the payment service never ran more payments at once than the limit.
	 * @return whether the limit held
	 */
	boolean withinLimit() {
		return this.peak <= this.limit;
	}

}
