package io.github.redislock.autoconfigure;

import java.lang.reflect.Method;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import io.github.redislock.annotation.LockConfigurationException;

/**
 * A {@code FailureAnalyzer} that presents an invalid
 * {@link io.github.redislock.DistributedLock @DistributedLock} or
 * {@link io.github.redislock.DistributedConcurrencyLimit @DistributedConcurrencyLimit}
 * declaration found at start-up: the class, the method, the key and what to do.
 *
 * @author redis-lock
 */
class LockConfigurationFailureAnalyzer extends AbstractFailureAnalyzer<LockConfigurationException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, LockConfigurationException cause) {
		StringBuilder description = new StringBuilder(
				"A @" + cause.getAnnotationType().getSimpleName() + " declaration is invalid:\n\n");
		description.append("    Class:  ").append(cause.getBeanClass().getName()).append('\n');
		Method method = cause.getMethod();
		if (method != null) {
			description.append("    Method: ").append(method.toGenericString()).append('\n');
		}
		if (cause.getKey() != null) {
			description.append("    Key:    ").append(cause.getKey()).append('\n');
		}
		description.append("    Reason: ").append(cause.getProblem()).append('\n');
		return new FailureAnalysis(description.toString(), cause.getAction() + ".", cause);
	}

}
