package io.github.redislock.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;

import io.github.redislock.engine.ScriptBatches.Answer;

/**
 * The answers to calls sent together, awaited together: which of them Redis answered
 * without failing.
 *
 * @author redis-lock
 */
final class BatchAnswers {

	private static final int SUCCEEDED = 1;

	private static final int FAILED = 2;

	private final AtomicIntegerArray outcomes;

	private final CountDownLatch pending;

	BatchAnswers(int calls) {
		this.outcomes = new AtomicIntegerArray(calls);
		this.pending = new CountDownLatch(calls);
	}

	/** One answer per call, in the order of the calls. */
	List<Answer<Long>> list() {
		List<Answer<Long>> answers = new ArrayList<>(this.outcomes.length());
		for (int i = 0; i < this.outcomes.length(); i++) {
			int index = i;
			answers.add((reply, failure) -> {
				this.outcomes.set(index, (failure != null) ? FAILED : SUCCEEDED);
				this.pending.countDown();
			});
		}
		return answers;
	}

	/**
	 * Wait until every call is answered or the time is up; an interrupt ends the wait
	 * early and is kept for the caller.
	 */
	void await(long timeoutMillis) {
		try {
			this.pending.await(timeoutMillis, TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** Whether the call at the index failed, as opposed to was not answered yet. */
	boolean failed(int index) {
		return this.outcomes.get(index) == FAILED;
	}

	/** Whether the call at the index was answered without failing. */
	boolean succeeded(int index) {
		return this.outcomes.get(index) == SUCCEEDED;
	}

}
