package io.github.redislock.engine;

import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

/**
 * An acquisition that the thread receiving a release message sends for a waiter it wakes,
 * so that the waiter wakes holding the lock rather than wakes to ask for it: a thread
 * wake-up less between a release and the next grant.
 *
 * <h2>Design notes</h2>
 *
 * <b>States.</b> A waiter woken this way is first <em>claimed</em> (marked woken under
 * its channel's monitor, its thread left asleep, so that the next release wakes the next
 * waiter), then its acquisition is <em>in flight</em> (sent from the message's thread,
 * with no monitor held), then <em>answered</em>: a grant is delivered to the waiter if it
 * is still queued, and its thread is woken either way.
 *
 * <p>
 * <b>Races.</b> The waiter's own deadline may pass, or it may be interrupted, while its
 * acquisition is in flight: it leaves the queue, and the grant that arrives afterwards
 * finds it gone and is released ({@link #undelivered}). The waiter may also try by itself
 * meanwhile, under its own owner token: the eager acquisition goes under another token,
 * so that the two cannot both be granted. A failed acquisition gives back whatever Redis
 * may have granted, and the woken waiter tries by itself.
 *
 * <p>
 * The engine decides which waiters get one ({@link EagerAcquisitions}); the waiter queue
 * decides when ({@link ChannelWaiters#wakeOne()}).
 *
 * @author redis-lock
 */
interface EagerAcquisition {

	/**
	 * Send the acquisition for the waiter's thread, or for a pending acquisition
	 * ({@code null}), whose grant no thread re-enters.
	 * @return the hold when granted, already recorded by the engine; {@code null} when
	 * refused; failed when Redis failed (the waiter then tries by itself)
	 */
	CompletionStage<@Nullable LockHold> start(@Nullable Thread thread);

	/** Release a grant whose waiter left before it arrived. */
	void undelivered(LockHold hold);

}
