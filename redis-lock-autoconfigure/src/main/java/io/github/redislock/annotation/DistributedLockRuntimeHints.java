package io.github.redislock.annotation;

import java.lang.reflect.RecordComponent;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * Keeps the root object of key expressions readable in native images: every key template
 * may read {@code #root.methodName}, {@code #root.args} and the others through
 * {@link RecordComponentAccessor}, which finds them as record components. Listed in
 * {@code META-INF/spring/aot.factories}, since {@code @DistributedLock} works without the
 * auto-configuration (a {@link DistributedLockBeanPostProcessor} bean of the
 * application's own).
 *
 * @author redis-lock
 */
final class DistributedLockRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		for (RecordComponent component : LockExpressionRoot.class.getRecordComponents()) {
			hints.reflection().registerMethod(component.getAccessor(), ExecutableMode.INVOKE);
		}
	}

}
