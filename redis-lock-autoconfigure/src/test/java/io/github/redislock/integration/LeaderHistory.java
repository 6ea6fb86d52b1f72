package io.github.redislock.integration;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the {@link LeaderNode}s of one election printed, and the checker of the fenced
 * counter: the accepted writes, put in the order Redis ran them by the counter's value
 * each returned, must never go back to an older leader's token, and each token must
 * belong to one node. Two leaders writing at once would interleave their tokens; a stale
 * leader whose write the fence let through would show a token going down.
 */
final class LeaderHistory {

	private static final Pattern WROTE = Pattern.compile("(?m)^WROTE (\\d+) (\\d+)$");

	private static final Pattern EVENT = Pattern.compile("(?m)^(GRANTED \\d+|REVOKED)$");

	private final Map<String, String> outputs;

	/**
	 * Read the nodes' outputs.
	 * @param outputs what each node printed, by node name
	 */
	LeaderHistory(Map<String, String> outputs) {
		this.outputs = outputs;
	}

	/** The nodes whose last leadership event was a grant. */
	List<String> leaders() {
		List<String> leaders = new ArrayList<>();
		this.outputs.forEach((node, output) -> {
			Matcher matcher = EVENT.matcher(output);
			String last = null;
			while (matcher.find()) {
				last = matcher.group(1);
			}
			if (last != null && last.startsWith("GRANTED")) {
				leaders.add(node);
			}
		});
		return leaders;
	}

	/** How many writes of the node the fence accepted. */
	long acceptedWrites(String node) {
		return WROTE.matcher(this.outputs.get(node)).results().count();
	}

	/** Check the accepted writes, and return them in the order Redis ran them. */
	List<Write> checkNoOverlap() {
		List<Write> writes = new ArrayList<>();
		this.outputs.forEach((node, output) -> WROTE.matcher(output)
			.results()
			.forEach((result) -> writes
				.add(new Write(Long.parseLong(result.group(1)), Long.parseLong(result.group(2)), node))));
		writes.sort(Comparator.comparingLong(Write::sequence));
		Map<Long, String> owners = new HashMap<>();
		Write previous = null;
		for (Write write : writes) {
			String owner = owners.putIfAbsent(write.token(), write.node());
			assertThat(owner).as("token %d written by %s and %s", write.token(), owner, write.node())
				.isIn(null, write.node());
			if (previous != null) {
				assertThat(write.sequence()).as("counter values").isGreaterThan(previous.sequence());
				assertThat(write.token()).as("%s accepted after %s", write, previous)
					.isGreaterThanOrEqualTo(previous.token());
			}
			previous = write;
		}
		return writes;
	}

	/**
	 * One write the fence accepted.
	 *
	 * @param sequence the counter's value after it, which orders the writes as Redis ran
	 * them
	 * @param token the writer's fencing token
	 * @param node the writer
	 */
	record Write(long sequence, long token, String node) {

	}

}
