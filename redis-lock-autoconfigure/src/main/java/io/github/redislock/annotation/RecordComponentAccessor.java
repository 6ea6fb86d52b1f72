package io.github.redislock.annotation;

import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import org.springframework.expression.AccessException;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.PropertyAccessor;
import org.springframework.expression.TypedValue;
import org.springframework.util.ReflectionUtils;

/**
 * Reads record components as SpEL properties, so that {@code #order.id} works when
 * {@code Order} is a record: SpEL's reflective accessor only knows {@code getId()}, and a
 * short key reference cannot call {@code id()}. Read-only.
 *
 * @author redis-lock
 */
final class RecordComponentAccessor implements PropertyAccessor {

	private final Map<Class<?>, Map<String, Optional<Method>>> accessors = new ConcurrentHashMap<>();

	@Override
	public Class<?>[] getSpecificTargetClasses() {
		return new Class<?>[] { Record.class };
	}

	@Override
	public boolean canRead(EvaluationContext context, @Nullable Object target, String name) {
		return target != null && accessor(target.getClass(), name) != null;
	}

	@Override
	public TypedValue read(EvaluationContext context, @Nullable Object target, String name) throws AccessException {
		Method accessor = (target != null) ? accessor(target.getClass(), name) : null;
		if (accessor == null) {
			throw new AccessException("No record component '" + name + "'");
		}
		return new TypedValue(ReflectionUtils.invokeMethod(accessor, target));
	}

	private @Nullable Method accessor(Class<?> type, String name) {
		if (!type.isRecord()) {
			return null;
		}
		return this.accessors.computeIfAbsent(type, (key) -> new ConcurrentHashMap<>())
			.computeIfAbsent(name, (key) -> find(type, name))
			.orElse(null);
	}

	private static Optional<Method> find(Class<?> type, String name) {
		for (RecordComponent component : type.getRecordComponents()) {
			if (component.getName().equals(name)) {
				Method accessor = component.getAccessor();
				ReflectionUtils.makeAccessible(accessor);
				return Optional.of(accessor);
			}
		}
		return Optional.empty();
	}

	@Override
	public boolean canWrite(EvaluationContext context, @Nullable Object target, String name) {
		return false;
	}

	@Override
	public void write(EvaluationContext context, @Nullable Object target, String name, @Nullable Object newValue)
			throws AccessException {
		throw new AccessException("Record components are read-only");
	}

}
