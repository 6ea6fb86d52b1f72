package io.github.redislock.contract;

import java.util.ArrayList;
import java.util.List;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.LockOptions;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.engine.RedisLockEngine;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The least-privileged Redis user of {@code docs/operations.md}, created word for word on
 * every server of a fixture's topology, replicas included, as each keeps its own users;
 * and nodes that sign in as that user ({@link LeastPrivilegeContract}).
 */
final class LeastPrivilegedUser {

	static final String USER = "redis-lock";

	static final String PASSWORD = "change-me";

	/** The rule of {@code docs/operations.md}, word for word. */
	static final List<String> RULE = List.of("on", ">" + PASSWORD, "resetchannels", "~redis-lock:*", "&redis-lock:*",
			"+@all", "-@dangerous", "+info");

	private final LockFixture locks;

	private LeastPrivilegedUser(LockFixture locks) {
		this.locks = locks;
	}

	/**
	 * Create the user anew on every server of the fixture, and forget what Redis refused
	 * before.
	 * @param locks the fixture
	 * @return the user
	 */
	static LeastPrivilegedUser createOn(LockFixture locks) {
		for (RedisServer server : locks.servers()) {
			try (RedisCli cli = server.cli()) {
				cli.command("ACL", "DELUSER", USER);
				List<String> setUser = new ArrayList<>(List.of("ACL", "SETUSER", USER));
				setUser.addAll(RULE);
				cli.command(setUser.toArray(String[]::new));
				cli.command("ACL", "LOG", "RESET");
			}
		}
		return new LeastPrivilegedUser(locks);
	}

	/** A connection factory that signs in as the user, destroyed with the fixture. */
	LettuceConnectionFactory connectionFactory() {
		return this.locks.connectionFactory(USER, PASSWORD);
	}

	/** A template on a node of its own, signed in as the user. */
	LockTemplate template(LockOptions options) {
		return this.locks.template(new RedisLockEngine(connectionFactory(), options));
	}

	/**
	 * The one command the user may not run is the engine's eviction-policy check,
	 * {@code CONFIG GET}, which it does without. Redis 6.2 logs a command without its
	 * subcommand, and counts every {@code CLIENT} subcommand as dangerous, so it also
	 * refuses the {@code CLIENT SETINFO} with which Lettuce names itself on connecting,
	 * and which Lettuce does without too.
	 */
	void assertNothingButConfigWasRefused() {
		for (RedisServer server : this.locks.servers()) {
			List<String> allowed = server.version().startsWith("6.") ? List.of("config", "client")
					: List.of("config|get");
			try (RedisCli cli = server.cli()) {
				assertThat(refusedCommands(cli)).as("commands refused by %s: %s", server, cli.command("ACL", "LOG"))
					.isSubsetOf(allowed.toArray());
			}
		}
	}

	/** One request of each kind, each on a lock of its own. */
	static List<LockRequest> everyKind(String name) {
		return List.of(LockRequest.of(name + ":exclusive"), LockRequest.of(name + ":fair").fair(true),
				LockRequest.read(name + ":read"), LockRequest.write(name + ":write"),
				LockRequest.permit(name + ":permit", 1));
	}

	/** A request that the given one's lock excludes, or that excludes it. */
	static LockRequest conflicting(LockRequest request) {
		return switch (request.mode()) {
			case EXCLUSIVE -> LockRequest.of(request.key()).fair(request.isFair());
			case READ -> LockRequest.write(request.key());
			case WRITE -> LockRequest.read(request.key());
			case PERMIT -> LockRequest.permit(request.key(), request.limit());
		};
	}

	/** The commands in the server's ACL log: each entry is a flat list of fields. */
	private static List<Object> refusedCommands(RedisCli cli) {
		List<Object> refused = new ArrayList<>();
		for (Object entry : (List<?>) cli.command("ACL", "LOG")) {
			List<?> fields = (List<?>) entry;
			refused.add(fields.get(fields.indexOf("object") + 1));
		}
		return refused;
	}

}
