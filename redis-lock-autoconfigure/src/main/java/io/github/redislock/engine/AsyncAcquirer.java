package io.github.redislock.engine;

import java.util.List;
import java.util.concurrent.CompletionStage;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

/**
 * Sends the acquire script without blocking, for a waiter woken by a release message: the
 * thread that received the message sends it at once, and the waiter wakes only when the
 * answer is there, which takes a thread wake-up off the path from release to grant.
 *
 * <p>
 * The script goes out on the subscription connection itself when Redis lets it (RESP3),
 * from the very thread that read the message, and otherwise on the engine's connection.
 *
 * @author redis-lock
 */
final class AsyncAcquirer {

	private final ScriptCommands commands;

	/**
	 * Whether the subscription connection refused a command, as it does when the server
	 * speaks RESP2 to it.
	 */
	private volatile boolean subscriptionRefusesCommands;

	AsyncAcquirer(ScriptCommands commands) {
		this.commands = commands;
	}

	/**
	 * Run an acquire script.
	 * @param call the acquire script's call, from {@link LockKind#acquireCall}
	 * @param subscriptionCommands commands on the subscription connection, or
	 * {@code null}
	 * @return the attempt; completes exceptionally when Redis failed
	 */
	@SuppressWarnings("rawtypes")
	CompletionStage<Attempt> acquire(ScriptCall<List> call,
			@Nullable RedisClusterAsyncCommands<byte[], byte[]> subscriptionCommands) {
		if (subscriptionCommands != null && !this.subscriptionRefusesCommands) {
			return send(subscriptionCommands, call).exceptionallyCompose((ex) -> {
				if (isRefusedWhileSubscribed(ex)) {
					// RESP2: a subscribed connection runs no other command, now or later.
					this.subscriptionRefusesCommands = true;
				}
				return send(this.commands.commands(), call);
			});
		}
		return send(this.commands.commands(), call);
	}

	private static boolean isRefusedWhileSubscribed(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			String message = cause.getMessage();
			if (message != null && message.contains("allowed in this context")) {
				return true;
			}
		}
		return false;
	}

	@SuppressWarnings("rawtypes")
	private CompletionStage<Attempt> send(RedisClusterAsyncCommands<byte[], byte[]> async, ScriptCall<List> call) {
		return this.commands.executeAsync(async, call).thenApply(Attempt::of);
	}

}
