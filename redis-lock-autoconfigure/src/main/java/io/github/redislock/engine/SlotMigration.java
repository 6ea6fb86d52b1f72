package io.github.redislock.engine;

import java.util.concurrent.TimeUnit;

/**
 * Recognises a script refused because its lock's cluster slot is being moved between
 * nodes ({@code TRYAGAIN}: not all of the slot's keys have moved yet). The script did not
 * run, so it is safe to send again; the acquire and release paths do, shortly.
 *
 * @author redis-lock
 */
final class SlotMigration {

	/** How soon a script refused during a migration is tried again. */
	static final long RETRY_MILLIS = 50;

	static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(RETRY_MILLIS);

	private SlotMigration() {
	}

	/** Whether Redis refused the script because its keys' slot is being migrated. */
	static boolean isMigrating(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			String message = cause.getMessage();
			if (message != null && message.startsWith("TRYAGAIN")) {
				return true;
			}
		}
		return false;
	}

}
