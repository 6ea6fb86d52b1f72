package io.github.redislock;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when the key of a {@link DistributedLock @DistributedLock} method could not be
 * built from the call's arguments: an expression evaluated to {@code null} or a blank
 * string, or failed. Nothing was locked and the method did not run. {@link #getKey()}
 * returns the key template, since there is no key.
 *
 * @author redis-lock
 */
public class LockKeyException extends LockException {

	private final Method method;

	private final String expression;

	/**
	 * Create an exception for a key part that could not be evaluated.
	 * @param template the key template
	 * @param expression the expression of the failing part
	 * @param method the annotated method
	 * @param problem what went wrong, such as "evaluated to null"
	 * @param cause the evaluation failure, if any
	 */
	public LockKeyException(String template, String expression, Method method, String problem,
			@Nullable Throwable cause) {
		super(template, "Lock key '" + template + "' of " + method.getDeclaringClass().getSimpleName() + "."
				+ method.getName() + "(..) could not be built: expression '" + expression + "' " + problem
				+ "; nothing was locked and the method did not run. Pass a value, or give the expression a default"
				+ " with the Elvis operator, such as \"#{#name ?: 'none'}\"");
		if (cause != null) {
			initCause(cause);
		}
		this.method = method;
		this.expression = expression;
	}

	/**
	 * Return the annotated method whose key could not be built.
	 * @return the method
	 */
	public Method getMethod() {
		return this.method;
	}

	/**
	 * Return the expression that evaluated to {@code null}, a blank string, or failed.
	 * @return the expression, as written in the template
	 */
	public String getExpression() {
		return this.expression;
	}

}
