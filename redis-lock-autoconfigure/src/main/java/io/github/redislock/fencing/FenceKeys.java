package io.github.redislock.fencing;

/**
 * Names the key that keeps a Redis resource's highest fencing token, in the same Redis
 * Cluster hash slot as the resource, so that one script may write both.
 *
 * @author redis-lock
 */
final class FenceKeys {

	private static final String SUFFIX = ":fence";

	private FenceKeys() {
	}

	/**
	 * Return the fence key of a resource: {@code key:fence} when the key has a hash tag
	 * (its slot is the tag's, which the suffix leaves alone), else {@code {key}:fence},
	 * whose tag is the whole key, as is the resource's slot.
	 * @param key the resource's key
	 * @return its fence key
	 * @throws IllegalArgumentException when the key has no hash tag but contains a
	 * {@code '}'}, which would end the tag early and put the fence in another slot
	 */
	static String of(String key) {
		if (hasHashTag(key)) {
			return key + SUFFIX;
		}
		if (key.indexOf('}') >= 0) {
			throw new IllegalArgumentException("The key '" + key + "' contains '}' but no hash tag, so its fence key "
					+ "could not share its Redis Cluster slot; give it a hash tag, as in '{" + key.replace("}", "")
					+ "}'");
		}
		return "{" + key + "}" + SUFFIX;
	}

	/**
	 * Whether Redis Cluster hashes only a part of the key: a {@code '{'} followed later
	 * by a {@code '}'} with at least one character between them.
	 */
	private static boolean hasHashTag(String key) {
		int open = key.indexOf('{');
		if (open < 0) {
			return false;
		}
		int close = key.indexOf('}', open + 1);
		return close > open + 1;
	}

}
