package io.github.redislock.annotation;

import java.lang.reflect.Method;
import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

import io.github.redislock.DistributedConcurrencyLimit;
import io.github.redislock.DistributedLock;
import io.github.redislock.DistributedLock.OnFailure;

/**
 * Registers, when an application is processed ahead of time, the reflection hints that
 * the {@link DistributedLock @DistributedLock} and
 * {@link DistributedConcurrencyLimit @DistributedConcurrencyLimit} methods of each bean
 * need in a native image, so that none need writing by hand: the members their key
 * templates navigate ({@link LockKeyHints}) and the fallback methods they call. The
 * annotated methods themselves are registered through {@code @Reflective} on the
 * annotation. Listed in {@code META-INF/spring/aot.factories}.
 *
 * @author redis-lock
 */
final class LockKeyBeanRegistrationAotProcessor implements BeanRegistrationAotProcessor {

	@Override
	public @Nullable BeanRegistrationAotContribution processAheadOfTime(RegisteredBean registeredBean) {
		Class<?> beanClass = ClassUtils.getUserClass(registeredBean.getBeanClass());
		if (!AnnotationUtils.isCandidateClass(beanClass, DistributedLock.class)
				&& !AnnotationUtils.isCandidateClass(beanClass, DistributedConcurrencyLimit.class)) {
			return null;
		}
		// The methods the post-processor checks at start-up, found the same way
		Map<Method, LockDeclaration> locked = new LinkedHashMap<>();
		for (Method method : ReflectionUtils.getUniqueDeclaredMethods(beanClass,
				ReflectionUtils.USER_DECLARED_METHODS)) {
			LockDeclaration lock;
			try {
				lock = LockDeclaration.find(method, beanClass);
			}
			catch (LockConfigurationException ex) {
				// Both annotations: the application stops at start-up with the fix
				continue;
			}
			if (lock != null) {
				locked.put(method, lock);
			}
		}
		if (locked.isEmpty()) {
			return null;
		}
		return (generationContext, code) -> {
			ReflectionHints hints = generationContext.getRuntimeHints().reflection();
			LockKeyEvaluator evaluator = new LockKeyEvaluator();
			LockKeyHints keyHints = new LockKeyHints(hints);
			locked.forEach((method, lock) -> register(hints, evaluator, keyHints, method, lock, beanClass));
		};
	}

	private static void register(ReflectionHints hints, LockKeyEvaluator evaluator, LockKeyHints keyHints,
			Method method, LockDeclaration lock, Class<?> beanClass) {
		for (String template : lock.keys()) {
			try {
				keyHints.register(evaluator.parse(template, method, beanClass), method);
			}
			catch (LockConfigurationException ex) {
				// Not this build's to report: the application stops at start-up with the
				// problem and its fix, as it would without AOT
			}
		}
		if (lock.onFailure() == OnFailure.FALLBACK && !lock.fallback().isEmpty()) {
			Method fallback = ReflectionUtils.findMethod(beanClass, lock.fallback(), method.getParameterTypes());
			if (fallback != null) {
				hints.registerMethod(fallback, ExecutableMode.INVOKE);
			}
		}
	}

}
