package io.github.redislock.faults;

import java.util.ArrayList;
import java.util.List;

import io.github.redislock.test.RedisCli;

/**
 * The resource the nemesis test's locks protect, kept in a Redis of its own that no fault
 * touches. It refuses a write whose fencing token is lower than the highest written, and
 * a read whose token is lower than that (the reader's lock was overtaken by a writer). It
 * also tracks who is inside each key's critical section, so that a holder entering while
 * a conflicting one is inside is recorded with it. Every operation is appended to one
 * log, in the order Redis ran them, for the checker.
 */
final class FencedResource {

	static final String LOG = "fenced:log";

	// KEYS: inside (hold id -> mode), fence (token, holder), log
	// ARGV: op, hold id, token, mode (x exclusive, w writer, r reader), lock name
	private static final String SCRIPT = """
			local op, hold, token, mode = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]
			local clock = redis.call('time')
			local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
			local result, conflicts = 'ok', '-'
			if op == 'enter' then
				local inside = redis.call('hgetall', KEYS[1])
				local found = {}
				for i = 1, #inside, 2 do
					if mode ~= 'r' or inside[i + 1] ~= 'r' then
						found[#found + 1] = inside[i]
					end
				end
				if #found > 0 then
					conflicts = table.concat(found, ',')
				end
				redis.call('hset', KEYS[1], hold, mode)
			elseif op == 'exit' then
				redis.call('hdel', KEYS[1], hold)
			else
				local fence = tonumber(redis.call('hget', KEYS[2], 'token'))
				if fence and token < fence then
					result = 'refused'
				elseif op == 'write' then
					if fence and token == fence and redis.call('hget', KEYS[2], 'holder') ~= hold then
						result = 'duplicate'
					else
						redis.call('hset', KEYS[2], 'token', ARGV[3], 'holder', hold)
					end
				end
			end
			redis.call('rpush', KEYS[3], table.concat({string.format('%.0f', now), ARGV[5], op, hold, ARGV[3], result, conflicts}, ' '))
			return result
			""";

	private final RedisCli cli;

	FencedResource(RedisCli cli) {
		this.cli = cli;
	}

	void enter(String key, String holdId, long token, String mode) {
		run("enter", key, holdId, token, mode);
	}

	/**
	 * Writes (exclusive and write holds) or reads (read holds) under a fencing token.
	 * @return {@code ok}, {@code refused} or {@code duplicate}
	 */
	String access(String key, String holdId, long token, String mode) {
		return run(mode.equals("r") ? "read" : "write", key, holdId, token, mode);
	}

	void exit(String key, String holdId) {
		run("exit", key, holdId, 0, "-");
	}

	private String run(String op, String key, String holdId, long token, String mode) {
		return (String) this.cli.command("EVAL", SCRIPT, "3", "fenced:{" + key + "}:inside",
				"fenced:{" + key + "}:fence", LOG, op, holdId, Long.toString(token), mode, key);
	}

	/**
	 * Reads the whole log.
	 * @param cli a connection to the resource's Redis
	 * @return the operations in the order they ran
	 */
	static List<Access> log(RedisCli cli) {
		List<Access> log = new ArrayList<>();
		long length = (Long) cli.command("LLEN", LOG);
		for (long from = 0; from < length; from += 10_000) {
			List<?> lines = (List<?>) cli.command("LRANGE", LOG, Long.toString(from), Long.toString(from + 9_999));
			for (Object line : lines) {
				log.add(Access.parse((String) line));
			}
		}
		return log;
	}

	/**
	 * One operation on the resource.
	 *
	 * @param timeMillis when Redis ran it
	 * @param key the lock name
	 * @param op {@code enter}, {@code write}, {@code read} or {@code exit}
	 * @param holdId the hold
	 * @param token its fencing token (0 for exit)
	 * @param result {@code ok}, {@code refused} or {@code duplicate}
	 * @param conflicts for an entry, the holds inside that it conflicts with
	 */
	record Access(long timeMillis, String key, String op, String holdId, long token, String result,
			List<String> conflicts) {

		static Access parse(String line) {
			String[] fields = line.split(" ");
			List<String> conflicts = fields[6].equals("-") ? List.of() : List.of(fields[6].split(","));
			return new Access(Long.parseLong(fields[0]), fields[1], fields[2], fields[3], Long.parseLong(fields[4]),
					fields[5], conflicts);
		}

		@Override
		public String toString() {
			return this.op + " " + this.key + " by " + this.holdId + " token " + this.token + " at " + this.timeMillis
					+ ": " + this.result + (this.conflicts.isEmpty() ? "" : ", inside: " + this.conflicts);
		}

	}

}
