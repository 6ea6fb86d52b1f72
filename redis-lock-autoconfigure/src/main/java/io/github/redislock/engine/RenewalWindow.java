package io.github.redislock.engine;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.ScriptOutputType;
import org.jspecify.annotations.Nullable;

import io.github.redislock.engine.LeaseRenewal.Attempt;
import io.github.redislock.engine.ScriptBatches.Answer;
import io.github.redislock.engine.ScriptCommands.PreparedCall;

/**
 * The watchdog's renewals in flight: sends the due ones, as many as its window lets
 * through, one {@code renew.lua} call per chunk of leases, and settles each. The tick
 * thread's own, apart from the count, which answers lower on the client's thread.
 *
 * <h2>Design notes</h2>
 *
 * <b>The window.</b> Since a lease's expiry counts from when its renewal was sent, a
 * renewal that waits long in the client's queue is worth little. So no more than
 * {@value #WINDOW} renewals count as in flight at once; when Redis answers more slowly
 * than leases fall due, the due leases wait in the schedule, oldest first, rather than in
 * the connection, and each is renewed less often but always with a fresh answer. The
 * window counts leases, not calls, since what Redis spends on renewals, and how long a
 * lock call waits behind them, grows with the leases renewed more than with the calls.
 * Whatever room there is goes out at once, in one write to the connection.
 *
 * <p>
 * A renewal counts against the window from its send until it is answered or a stall (a
 * quarter of the renew interval, 250 ms at most) has passed: one waiting longer waits for
 * a stalled server, and must not hold up the renewals of leases on healthy ones. Answers
 * are taken in the order the renewals were sent, so an answer waits at most a stall
 * behind an earlier one still unanswered, which is well before its lease is due again. A
 * stalled renewal is settled by its answer, by its deadline (the engine's own,
 * {@link LockWatchdog#answerDeadlineNanos()}), by its lease being released, or by its
 * lease running out, whichever comes first.
 *
 * <p>
 * <b>Chunks.</b> {@code renew.lua} renews a batch of leases, so one call renews up to
 * {@value #CHUNK} of them: what Redis spends on a call, and the client on a command, is
 * shared by the leases of a chunk. On a cluster a script may only touch the keys of one
 * slot, so the renewals are grouped by slot first, each chunk goes to its slot's node
 * where Lettuce routes it by its first key, and a redirection, a failure or a stall of
 * one slot or node holds up only that slot's chunks. A lease alone in its chunk is a
 * batch of one, answered with a number, which costs Redis less than a list; so is one
 * whose last chunk was refused because its slot was being migrated
 * ({@link LeaseRenewal#sendAlone()}). A chunk's call is its leases' own calls put end to
 * end, keys and arguments each in order. Each lease keeps its own {@link Attempt}: a
 * chunk's answer is one number per key, handed to each, and a chunk that fails fails
 * each, so that each lease's fate is decided as for a renewal of its own. Running a chunk
 * twice, as Lettuce may after a reconnect, is harmless: each lease is set to the same
 * length again.
 *
 * @author redis-lock
 */
final class RenewalWindow {

	/**
	 * Renewals in flight at most, not counting those that wait for a stalled server: few
	 * enough that a lock call sent meanwhile waits little behind them.
	 */
	static final int WINDOW = 1000;

	/**
	 * Leases renewed by one call at most. Measured on a busy 2-core machine (Redis 7.0),
	 * a call of 100 ran for about 190 µs in Redis, 1.9 µs a lease against 6.6 µs for a
	 * call per lease, and one of 1,000 for about 4.5 ms: a chunk of 100 keeps what a lock
	 * call arriving meanwhile waits well under a round trip, while the cost of the call
	 * itself is already shared by enough leases that larger chunks would save little
	 * more.
	 */
	static final int CHUNK = 100;

	private final LockScripts scripts;

	/** How long a renewal counts against the window at most. */
	private final long stallNanos;

	/** How long a renewal may go unanswered before it counts as failed. */
	private final long deadlineNanos;

	/** Renewals that count against the window now. */
	private final AtomicInteger inFlight = new AtomicInteger();

	/** Renewals sent less than a stall ago, oldest first. */
	private final ArrayDeque<Attempt> young = new ArrayDeque<>();

	/** Renewals unanswered for longer than a stall. */
	private final ArrayDeque<Attempt> stalled = new ArrayDeque<>();

	RenewalWindow(LockScripts scripts, long stallNanos, long deadlineNanos) {
		this.scripts = scripts;
		this.stallNanos = stallNanos;
		this.deadlineNanos = deadlineNanos;
	}

	/**
	 * Send the renewals that are due, as many as the window lets through; a lease that
	 * ran out meanwhile is settled as expired instead.
	 * @return whether due renewals are left for lack of room
	 */
	boolean sendDue(RenewalSchedule schedule, long now, Settled settled) {
		int room = WINDOW - this.inFlight.get();
		long sentAt = (now != LeaseRenewal.NONE) ? now : now + 1;
		List<Attempt> attempts = new ArrayList<>();
		LeaseRenewal renewal;
		while (attempts.size() < room && (renewal = schedule.pollDue()) != null) {
			if (!renewal.isWatched()) {
				continue;
			}
			if (now - renewal.lease().expiresAtNanos() >= 0) {
				settled.expired(renewal);
				continue;
			}
			Attempt attempt = renewal.send(sentAt, this.inFlight);
			attempts.add(attempt);
			this.young.addLast(attempt);
		}
		if (!attempts.isEmpty()) {
			try {
				send(attempts);
			}
			catch (RuntimeException ex) {
				attempts.forEach((attempt) -> attempt.answered(null, ex));
			}
		}
		return attempts.size() >= room && schedule.hasDue();
	}

	/**
	 * Send the renewals without waiting: those of one slot (of one server when not a
	 * cluster) together, in chunks.
	 * @throws RuntimeException when the connection could not be opened before any was
	 * sent; then none is told
	 */
	@SuppressWarnings("rawtypes")
	private void send(List<Attempt> attempts) {
		boolean cluster = this.scripts.isCluster();
		Map<Integer, List<Attempt>> groups = new LinkedHashMap<>();
		List<Attempt> alone = new ArrayList<>();
		for (Attempt attempt : attempts) {
			LeaseRenewal renewal = attempt.renewal();
			if (renewal.takeAlone()) {
				alone.add(attempt);
			}
			else {
				groups.computeIfAbsent(cluster ? renewal.slot(this.scripts) : 0, (slot) -> new ArrayList<>())
					.add(attempt);
			}
		}
		List<PreparedCall<List>> chunks = new ArrayList<>();
		List<ChunkAnswer> chunkAnswers = new ArrayList<>();
		for (List<Attempt> group : groups.values()) {
			for (int first = 0; first < group.size(); first += CHUNK) {
				List<Attempt> chunk = group.subList(first, Math.min(first + CHUNK, group.size()));
				if (chunk.size() == 1) {
					alone.add(chunk.get(0));
				}
				else {
					chunks.add(chunkCall(chunk));
					chunkAnswers.add(new ChunkAnswer(chunk));
				}
			}
		}
		sendAll(chunks, chunkAnswers);
		sendAll(alone.stream().map((attempt) -> attempt.renewal().call(this.scripts)).toList(), alone);
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

	/** The leases' own calls of {@code renew.lua} put end to end: one batch. */
	@SuppressWarnings("rawtypes")
	private PreparedCall<List> chunkCall(List<Attempt> chunk) {
		List<byte[]> keys = new ArrayList<>(chunk.size());
		List<byte[]> args = new ArrayList<>(chunk.size() * 3);
		for (Attempt attempt : chunk) {
			PreparedCall<Long> one = attempt.renewal().call(this.scripts);
			keys.addAll(List.of(one.keys()));
			args.addAll(List.of(one.args()));
		}
		return new PreparedCall<>(LockScripts.RENEW_BATCH, ScriptOutputType.MULTI,
				chunk.get(0).renewal().call(this.scripts).sha(), keys.toArray(byte[][]::new),
				args.toArray(byte[][]::new));
	}

	/**
	 * Take the answers that arrived, in the order the renewals were sent; stop counting
	 * the renewals that wait for a stalled server, fail those past their deadline, and
	 * lose the leases that ran out meanwhile.
	 */
	void settle(long now, Settled settled) {
		Attempt attempt;
		while ((attempt = this.young.peekFirst()) != null) {
			if (attempt.isAnswered()) {
				settled.answered(this.young.pollFirst());
			}
			else if (now - attempt.sentAt() >= this.stallNanos) {
				attempt.stall();
				this.stalled.addLast(this.young.pollFirst());
			}
			else {
				break;
			}
		}
		this.stalled.removeIf((stalled) -> {
			LeaseRenewal renewal = stalled.renewal();
			if (stalled.isAnswered()) {
				settled.answered(stalled);
				return true;
			}
			if (!renewal.isWatched()) {
				return true;
			}
			if (now - stalled.sentAt() >= this.deadlineNanos && renewal.settle(stalled.sentAt())) {
				settled.failed(renewal, new RedisCommandTimeoutException("Redis did not answer the renewal within "
						+ TimeUnit.NANOSECONDS.toMillis(now - stalled.sentAt()) + " ms"), now);
				return true;
			}
			if (now - renewal.lease().expiresAtNanos() >= 0) {
				settled.expired(renewal);
				return true;
			}
			return false;
		});
	}

	/** Told how renewals were settled, on the tick thread. */
	interface Settled {

		/** The renewal was answered, in time or not. */
		void answered(Attempt attempt);

		/**
		 * The renewal failed, or went unanswered past its deadline: send it again.
		 * @param retryAt when to send it again, as {@link System#nanoTime()}
		 */
		void failed(LeaseRenewal renewal, Throwable failure, long retryAt);

		/** The lease ran out before its renewal was sent or answered. */
		void expired(LeaseRenewal renewal);

	}

	/** Hands the answer of a chunk to each of its leases' attempts. */
	@SuppressWarnings("rawtypes")
	private static final class ChunkAnswer implements Answer<List> {

		private final List<Attempt> attempts;

		ChunkAnswer(List<Attempt> attempts) {
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
				this.attempts.forEach((attempt) -> attempt.renewal().sendAlone());
			}
			for (int i = 0; i < this.attempts.size(); i++) {
				Object result = (failure == null) ? reply.get(i) : null;
				this.attempts.get(i).answered((result instanceof Long renewed) ? renewed : null, failure);
			}
		}

	}

}
