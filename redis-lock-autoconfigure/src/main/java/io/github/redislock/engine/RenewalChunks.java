package io.github.redislock.engine;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.lettuce.core.RedisException;
import io.lettuce.core.ScriptOutputType;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.script.RedisScript;

import io.github.redislock.engine.ScriptBatches.Answer;
import io.github.redislock.engine.ScriptBatches.PreparedCall;

/**
 * Sends the watchdog's renewals in chunks, one {@code renew-many.lua} call for up to
 * {@value #CHUNK} leases, rather than one script call per lease: what Redis spends on a
 * call, and the client on a command, is then shared by the leases of a chunk.
 *
 * <p>
 * On a cluster a script may only touch the keys of one slot, so the renewals are grouped
 * by slot first, each chunk goes to its slot's node where Lettuce routes it by its first
 * key, and a redirection, a failure or a stall of one slot or node holds up only that
 * slot's chunks. A lease alone in its group is renewed by its kind's own renew script, as
 * is one whose last chunk was refused because its slot was being migrated
 * ({@link LeaseRenewal#sendAlone()}). On a single server or Sentinel any keys go
 * together.
 *
 * <p>
 * Each lease keeps its own {@link RenewalAttempt}: the answer of a chunk is one number
 * per key, handed to each lease's attempt, and a chunk that fails fails each of its
 * leases' attempts, so that the watchdog decides each lease's fate as for a renewal of
 * its own. Running a chunk twice, as Lettuce may after a reconnect, is as harmless as
 * running each lease's renewal twice: each sets the same lease again.
 *
 * @author redis-lock
 */
final class RenewalChunks {

	/**
	 * Leases renewed by one call at most. Measured on a busy 2-core machine (Redis 7.0),
	 * a call of 100 ran for about 190 µs in Redis, 1.9 µs a lease against 6.6 µs for a
	 * renew script call per lease, and one of 1,000 for about 4.5 ms: a chunk of 100
	 * keeps what a lock call arriving meanwhile waits well under a round trip, while the
	 * cost of the call itself is already shared by enough leases that larger chunks would
	 * save little more.
	 */
	static final int CHUNK = 100;

	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> RENEW_MANY = LockScripts.script("renew-many.lua", List.class);

	private static final byte[] RENEW_MANY_SHA = ScriptCall.bytes(RENEW_MANY.getSha1());

	private final LockScripts scripts;

	RenewalChunks(LockScripts scripts) {
		this.scripts = scripts;
	}

	/**
	 * Send the renewals without waiting: those of one slot (of one server when not a
	 * cluster) together, in chunks.
	 * @param attempts the renewals sent at one time, each told its answer on the Redis
	 * client's thread
	 * @throws RuntimeException when the connection could not be opened before any was
	 * sent; then none is told
	 */
	@SuppressWarnings("rawtypes")
	void send(List<RenewalAttempt> attempts) {
		boolean cluster = this.scripts.isCluster();
		Map<Integer, List<RenewalAttempt>> groups = new LinkedHashMap<>();
		List<PreparedCall<Long>> singles = new ArrayList<>();
		List<RenewalAttempt> singleAnswers = new ArrayList<>();
		for (RenewalAttempt attempt : attempts) {
			LeaseRenewal renewal = attempt.renewal();
			if (renewal.takeAlone()) {
				singles.add(renewal.call(this.scripts));
				singleAnswers.add(attempt);
			}
			else {
				int group = cluster ? renewal.slot(this.scripts) : 0;
				groups.computeIfAbsent(group, (slot) -> new ArrayList<>()).add(attempt);
			}
		}
		List<PreparedCall<List>> chunks = new ArrayList<>();
		List<ChunkAnswer> chunkAnswers = new ArrayList<>();
		for (List<RenewalAttempt> group : groups.values()) {
			if (group.size() == 1) {
				singles.add(group.get(0).renewal().call(this.scripts));
				singleAnswers.add(group.get(0));
				continue;
			}
			for (int first = 0; first < group.size(); first += CHUNK) {
				List<RenewalAttempt> chunk = group.subList(first, Math.min(first + CHUNK, group.size()));
				chunks.add(chunkCall(chunk));
				chunkAnswers.add(new ChunkAnswer(chunk));
			}
		}
		sendAll(chunks, chunkAnswers);
		sendAll(singles, singleAnswers);
	}

	private <T> void sendAll(List<PreparedCall<T>> calls, List<? extends Answer<T>> answers) {
		if (calls.isEmpty()) {
			return;
		}
		try {
			this.scripts.executeAllAsync(calls, answers);
		}
		catch (RuntimeException ex) {
			answers.forEach((answer) -> answer.answered(null, ex));
		}
	}

	/**
	 * The call of {@code renew-many.lua} for a chunk: per lease, the key and the owner
	 * and lease arguments of its kind's renew call, and how to renew it.
	 */
	@SuppressWarnings("rawtypes")
	private PreparedCall<List> chunkCall(List<RenewalAttempt> chunk) {
		byte[][] keys = new byte[chunk.size()][];
		byte[][] args = new byte[chunk.size() * 3][];
		for (int i = 0; i < chunk.size(); i++) {
			LeaseRenewal renewal = chunk.get(i).renewal();
			PreparedCall<Long> single = renewal.call(this.scripts);
			keys[i] = single.keys()[0];
			args[3 * i] = ScriptCall.bytes(renewal.lease().kind().renewManyMode());
			args[3 * i + 1] = single.args()[0];
			args[3 * i + 2] = single.args()[1];
		}
		return new PreparedCall<>(RENEW_MANY, ScriptOutputType.MULTI, RENEW_MANY_SHA, keys, args);
	}

	/** Hands the answer of a chunk to each of its leases' attempts. */
	@SuppressWarnings("rawtypes")
	private static final class ChunkAnswer implements Answer<List> {

		private final List<RenewalAttempt> attempts;

		ChunkAnswer(List<RenewalAttempt> attempts) {
			this.attempts = attempts;
		}

		@Override
		public void answered(@Nullable List reply, @Nullable Throwable failed) {
			Throwable failure = failed;
			if (failure == null && (reply == null || reply.size() != this.attempts.size())) {
				failure = new RedisException("Unexpected answer to the renewal of " + this.attempts.size() + " locks: "
						+ ((reply != null) ? reply.size() + " results" : "none"));
			}
			if (failure != null && SlotMigration.isMigrating(failure)) {
				for (RenewalAttempt attempt : this.attempts) {
					attempt.renewal().sendAlone();
				}
			}
			for (int i = 0; i < this.attempts.size(); i++) {
				RenewalAttempt attempt = this.attempts.get(i);
				if (failure != null) {
					attempt.answered(null, failure);
				}
				else {
					Object result = reply.get(i);
					attempt.answered((result instanceof Long renewed) ? renewed : null, null);
				}
			}
		}

	}

}
