package io.github.redislock.annotation;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import io.github.redislock.DistributedConcurrencyLimit;
import io.github.redislock.DistributedLock;

/**
 * Thrown when a bean is created whose {@link io.github.redislock.DistributedLock
 *
 * @DistributedLock} or {@link io.github.redislock.DistributedConcurrencyLimit
 * @DistributedConcurrencyLimit} declaration cannot work: a key template that does not
 * parse, names an unknown parameter or is blank, a wait or lease time, a limit or a fair
 * read or write lock that breaks its {@link io.github.redislock.LockRules rule}, a
 * missing fallback, a return type whose work would outlive the lock, or no
 * {@link io.github.redislock.LockOperations} bean to lock with. It stops the application
 * at start-up rather than letting a method run unlocked or fail on its first call. Spring
 * Boot presents it with a failure analysis.
 * @author redis-lock
 */
public class LockConfigurationException extends IllegalStateException {

	private final Class<? extends Annotation> annotationType;

	private final Class<?> beanClass;

	private final @Nullable Method method;

	private final @Nullable String key;

	private final String problem;

	private final String action;

	/**
	 * Create an exception for an invalid declaration.
	 * @param beanClass the class of the bean
	 * @param method the annotated method, or {@code null} when the problem is not one
	 * method's
	 * @param key the key template at fault, or {@code null}
	 * @param problem what is wrong
	 * @param action what to do about it
	 */
	public LockConfigurationException(Class<?> beanClass, @Nullable Method method, @Nullable String key, String problem,
			String action) {
		this(DistributedLock.class, beanClass, method, key, problem, action);
	}

	/**
	 * Create an exception for an invalid declaration of the given annotation.
	 * @param annotationType the annotation declared, {@link DistributedLock} or
	 * {@link DistributedConcurrencyLimit}
	 * @param beanClass the class of the bean
	 * @param method the annotated method, or {@code null} when the problem is not one
	 * method's
	 * @param key the key template at fault, or {@code null}
	 * @param problem what is wrong
	 * @param action what to do about it
	 */
	public LockConfigurationException(Class<? extends Annotation> annotationType, Class<?> beanClass,
			@Nullable Method method, @Nullable String key, String problem, String action) {
		super("Invalid @" + annotationType.getSimpleName() + " on " + describe(beanClass, method)
				+ ((key != null) ? ", key '" + key + "'" : "") + ": " + problem + ". " + action);
		this.annotationType = annotationType;
		this.beanClass = beanClass;
		this.method = method;
		this.key = key;
		this.problem = problem;
		this.action = action;
	}

	/**
	 * Return a readable name of a method of a bean class, such as
	 * {@code com.example.OrderService.ship(Order)}.
	 * @param beanClass the bean class
	 * @param method the method, or {@code null} for the class alone
	 * @return the description
	 */
	static String describe(Class<?> beanClass, @Nullable Method method) {
		if (method == null) {
			return beanClass.getName();
		}
		return beanClass.getName() + "." + method.getName()
				+ Arrays.stream(method.getParameterTypes())
					.map(Class::getSimpleName)
					.collect(Collectors.joining(", ", "(", ")"));
	}

	/**
	 * Return the same exception for a declaration of another annotation, such as a key
	 * template problem found by the {@link LockKeyEvaluator}, which does not know which
	 * annotation the template came from.
	 */
	LockConfigurationException forAnnotation(Class<? extends Annotation> annotationType) {
		if (annotationType == this.annotationType) {
			return this;
		}
		LockConfigurationException exception = new LockConfigurationException(annotationType, this.beanClass,
				this.method, this.key, this.problem, this.action);
		exception.setStackTrace(getStackTrace());
		return exception;
	}

	/**
	 * Return the annotation whose declaration is invalid: {@link DistributedLock} unless
	 * the problem is a {@link DistributedConcurrencyLimit} method's.
	 * @return the annotation type
	 */
	public Class<? extends Annotation> getAnnotationType() {
		return this.annotationType;
	}

	/**
	 * Return the class of the bean whose declaration is invalid.
	 * @return the bean class
	 */
	public Class<?> getBeanClass() {
		return this.beanClass;
	}

	/**
	 * Return the annotated method at fault, if the problem is one method's.
	 * @return the method or {@code null}
	 */
	public @Nullable Method getMethod() {
		return this.method;
	}

	/**
	 * Return the key template at fault, if the problem is a key's.
	 * @return the key template or {@code null}
	 */
	public @Nullable String getKey() {
		return this.key;
	}

	/**
	 * Return what is wrong, without the class, method and key.
	 * @return the problem
	 */
	public String getProblem() {
		return this.problem;
	}

	/**
	 * Return what to do about it.
	 * @return the action
	 */
	public String getAction() {
		return this.action;
	}

}
