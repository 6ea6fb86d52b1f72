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
 * <b>The window.</b> A lease's expiry counts from when its renewal was sent, so a renewal
 * that waits long in the client's queue is worth little: at most {@value #WINDOW} leases
 * are in flight, and when Redis answers more slowly than leases fall due, the rest wait
 * in the schedule, oldest first, not in the connection ({@code ManyHeldLocksTests}).
 *
 * <p>
 * A renewal stops counting against the window after a stall (a quarter of the renew
 * interval, 250 ms at most): it waits for a stalled server and must not hold up the
 * leases on healthy ones ({@code StalledShardTests}). Answers are taken in sending order.
 * A stalled renewal is settled by its answer, its deadline, its lease's release or its
 * lease running out, whichever comes first.
 *
 * <p>
 * <b>Chunks.</b> One call renews up to {@value #CHUNK} leases of one slot (a script may
 * touch one slot only), so that a redirection, failure or stall of one slot holds up only
 * its chunks. A lease alone in its chunk, or whose chunk was refused during a slot
 * migration ({@link LeaseRenewal#sendAlone()}, {@code HalfMovedSlotRenewalTests}), goes
 * as a batch of one, which costs Redis less. Each lease keeps its own {@link Attempt}, so
 * its fate is decided as for a renewal of its own. A chunk run twice, as Lettuce may
 * after a reconnect, sets each lease to the same length again: harmless.
 *
 * @author redis-lock
 */
final class RenewalWindow {

	/**
	 * Renewals in flight at most, stalled ones not counted: few enough that a lock call
	 * sent meanwhile waits little behind them.
	 */
	static final int WINDOW = 1000;

	/**
	 * Leases renewed by one call at most. Measured on a busy 2-core machine (Redis 7.0),
	 * a call of 100 ran for about 190 µs, 1.9 µs a lease against 6.6 µs for a call per
	 * lease, and one of 1,000 for about 4.5 ms: 100 keeps a lock call's wait behind it
	 * well under a round trip, and larger chunks would save little more.
	 */
	static final int CHUNK = 100;

	private final LockScripts scripts;

	/** How long a renewal counts against the window at most. */
	private final long stallNanos;

	/** How long a renewal may go unanswered before it counts as failed. */
	private final long deadlineNanos;

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
	 * Send the due renewals the window has room for; a lease that ran out meanwhile is
	 * settled as expired instead. True when due renewals are left for lack of room.
	 */
	boolean sendDue(RenewalSchedule schedule, long now, LockWatchdog settled) {
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
	 * Send the renewals without waiting, those of one slot together in chunks.
	 * @throws RuntimeException when the connection could not be opened; none is told
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
	 * Take the answers that arrived, in sending order; stop counting stalled renewals,
	 * fail those past their deadline, and lose the leases that ran out meanwhile.
	 */
	void settle(long now, LockWatchdog settled) {
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

	/** Hands the answer of a chunk to each of its leases' attempts. */
	@SuppressWarnings("rawtypes")
	private record ChunkAnswer(List<Attempt> attempts) implements Answer<List> {

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
