package io.github.redislock.contract;

import org.junit.jupiter.api.Test;

import io.github.redislock.LockMode;

/**
 * Connections ended while many commands are in flight and their answers are lost: Redis
 * ran them, and Lettuce sends them again after reconnecting. A replayed acquisition must
 * be taken for the caller's own grant, a replayed release for a release, so that no
 * thread waits for its own lock, none is told a lock it released was lost, and nothing
 * stays locked. The template under test reaches every server of the topology through a
 * fault proxy ({@link LockFixture#proxied}).
 */
interface ReplayedCommandContract extends LockContract {

	/** The key prefix of these tests' locks. */
	String REPLAY_PREFIX = "replay:";

	@Test
	default void exclusiveLocksSurviveRepliesLostAndCommandsReplayed() throws Exception {
		new ReplayedCommands(locks(), executor()).exercise(LockMode.EXCLUSIVE, false);
	}

	@Test
	default void fairLocksSurviveRepliesLostAndCommandsReplayed() throws Exception {
		new ReplayedCommands(locks(), executor()).exercise(LockMode.EXCLUSIVE, true);
	}

	@Test
	default void writeLocksSurviveRepliesLostAndCommandsReplayed() throws Exception {
		new ReplayedCommands(locks(), executor()).exercise(LockMode.WRITE, false);
	}

	/** Permits with a limit of 1, so that two holders at once are an overlap. */
	@Test
	default void permitsSurviveRepliesLostAndCommandsReplayed() throws Exception {
		new ReplayedCommands(locks(), executor()).exercise(LockMode.PERMIT, false);
	}

}
