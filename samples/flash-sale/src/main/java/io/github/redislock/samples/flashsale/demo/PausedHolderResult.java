package io.github.redislock.samples.flashsale.demo;

import java.time.Duration;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.LongStream;

/**
 * What came of a {@link PausedHolderRound}.
 *
 * @param heldStatus the HTTP status of the paused instance's purchase, once resumed:
 * {@code 200} when its write went through unnoticed, {@code 500} when it went through and
 * the release then found the lock lost, {@code 409} when a fenced write was refused
 * @param heldBody what that purchase answered
 * @param whilePaused the purchases sent to the other instance while the holder was paused
 * @param afterwards the purchases sent to both once the holder had written
 * @param elapsed the time the run took, pause included
 * @author redis-lock
 */
record PausedHolderResult(int heldStatus, String heldBody, LoadResult whilePaused, LoadResult afterwards,
		Duration elapsed) {

	private static final Pattern TOKEN = Pattern.compile("fencing token (\\d+)");

	private static final Pattern HIGHEST = Pattern.compile("has seen token (\\d+)");

	/**
	 * Return the purchases of the run as one result: the held one counts as a sale when
	 * it answered {@code 200} and as rejected when {@code 409}; any other answer it gave
	 * is told apart by {@link ResultTable}, which explains it.
	 * @return the combined result
	 */
	LoadResult combined() {
		int held = this.heldStatus;
		long[] latencies = LongStream
			.concat(LongStream.of(this.whilePaused.latencies()), LongStream.of(this.afterwards.latencies()))
			.toArray();
		String firstFailure = this.whilePaused.firstFailure();
		return new LoadResult(this.whilePaused.sold() + this.afterwards.sold() + ((held == 200) ? 1 : 0),
				this.whilePaused.rejected() + this.afterwards.rejected() + ((held == 409) ? 1 : 0),
				this.whilePaused.busy() + this.afterwards.busy(), this.whilePaused.failed() + this.afterwards.failed(),
				this.elapsed, latencies, (firstFailure != null) ? firstFailure : this.afterwards.firstFailure());
	}

	/**
	 * Return the fencing token of the paused holder's lock, when its answer names it.
	 * @return the token
	 */
	OptionalLong heldToken() {
		return number(TOKEN);
	}

	/**
	 * Return the highest token the product had seen when a fenced write refused the
	 * holder's.
	 * @return the token
	 */
	OptionalLong highestToken() {
		return number(HIGHEST);
	}

	private OptionalLong number(Pattern pattern) {
		Matcher matcher = pattern.matcher(this.heldBody);
		return matcher.find() ? OptionalLong.of(Long.parseLong(matcher.group(1))) : OptionalLong.empty();
	}

}
