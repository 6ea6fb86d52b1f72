package io.github.redislock.observation;

import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * Derives the low-cardinality name that metrics and traces report a lock under. A
 * request's own {@linkplain io.github.redislock.LockRequest#name(String) name} comes
 * first ({@code @DistributedLock} methods are named {@code BeanClass.method}); otherwise
 * every part of the key that the id pattern matches is replaced with {@code *}, so that
 * {@code "order:42"} and {@code "order:43"} are both reported as {@code "order:*"}.
 *
 * <p>
 * The {@linkplain #DEFAULT_ID_PATTERN default id pattern} matches every segment of the
 * key that contains a digit, segments being separated by {@code : / . # @ | , ; =} or
 * whitespace: {@code "tenant-7:invoice:3f2a9c0e-..."} becomes {@code "*:invoice:*"}. Keys
 * with ids that contain no digit (user names, e-mail addresses) need a pattern of their
 * own or a request name, or each of them becomes a metric tag value of its own.
 *
 * @author redis-lock
 */
public final class LockNames {

	/**
	 * Default id pattern: a key segment that contains a digit.
	 */
	public static final String DEFAULT_ID_PATTERN = "[^:/.#@|,;=\\s]*\\d[^:/.#@|,;=\\s]*";

	private static final LockNames DEFAULTS = new LockNames(Pattern.compile(DEFAULT_ID_PATTERN));

	private final Pattern idPattern;

	/**
	 * Create a naming that replaces the matches of the given pattern.
	 * @param idPattern matches the variable parts of keys, such as ids
	 */
	public LockNames(Pattern idPattern) {
		this.idPattern = idPattern;
	}

	/**
	 * Return the naming with the {@linkplain #DEFAULT_ID_PATTERN default id pattern}.
	 * @return the default naming
	 */
	public static LockNames defaults() {
		return DEFAULTS;
	}

	/**
	 * Return the name to report a lock under.
	 * @param key the lock name as requested
	 * @param requestName the request's own name, or {@code null}
	 * @return the request's name, else the key with its ids replaced by {@code *}
	 */
	public String nameOf(String key, @Nullable String requestName) {
		return (requestName != null) ? requestName : this.idPattern.matcher(key).replaceAll("*");
	}

	/**
	 * Return the id pattern.
	 * @return the pattern
	 */
	public Pattern idPattern() {
		return this.idPattern;
	}

}
