package io.github.redislock.health;

import java.util.Locale;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

import io.github.redislock.LockDiagnostics;
import io.github.redislock.SubscriptionStatus;

/**
 * {@link HealthIndicator} of a lock engine: {@code DOWN} while the connection that
 * receives release messages is broken, or a lock that threads wait for is not subscribed,
 * since those threads then wake only when the holder's lease runs out, and {@code UP}
 * otherwise, also before any thread has waited. The details give the subscription status
 * and how many locks are held and awaited; no lock names.
 *
 * <p>
 * It does not check Redis itself, which the {@code redis} health indicator does: it sends
 * no command.
 *
 * @author redis-lock
 */
public class RedisLockHealthIndicator extends AbstractHealthIndicator {

	private final LockDiagnostics diagnostics;

	/**
	 * Create an indicator of an engine.
	 * @param diagnostics the engine's diagnostics, such as
	 * {@code lockEngine.diagnostics()}
	 */
	public RedisLockHealthIndicator(LockDiagnostics diagnostics) {
		super("Lock engine health check failed");
		this.diagnostics = diagnostics;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		SubscriptionStatus status = this.diagnostics.subscriptionStatus();
		if (status == SubscriptionStatus.DISCONNECTED) {
			builder.down()
				.withDetail("reason",
						"The connection that receives lock release messages is broken, or a lock that threads wait "
								+ "for is not subscribed; until it is back, those threads wake only when the holder's "
								+ "lease runs out");
		}
		else {
			builder.up();
		}
		builder.withDetail("subscription", status.name().toLowerCase(Locale.ROOT))
			.withDetail("heldLocks", this.diagnostics.heldCount())
			.withDetail("waitingThreads", this.diagnostics.waiterCount());
	}

}
