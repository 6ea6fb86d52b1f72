package io.github.redislock.annotation;

import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.MethodParameter;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.ResolvableType;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.CompoundExpression;
import org.springframework.expression.spel.ast.MethodReference;
import org.springframework.expression.spel.ast.PropertyOrFieldReference;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;

import io.github.redislock.annotation.LockKeyEvaluator.LockKey;

/**
 * Registers the reflection hints that the key templates of a
 * {@link io.github.redislock.DistributedLock @DistributedLock} method need in a native
 * image: each member that a chain such as {@code #order.customer.id} calls, followed from
 * the declared type of the parameter it starts at ({@code Order.getCustomer()}, then
 * {@code Customer.id()} when {@code Customer} is a record). Templates are parsed by
 * {@link LockKeyEvaluator}, as at start-up.
 *
 * <p>
 * A property is read as the key evaluation reads it: a record component's accessor, else
 * a getter ({@code getName()}, {@code isName()} for a boolean) or a method named as the
 * property. A chain stops where the next type is unknown until the call: a step on an
 * {@code Object} or an unresolved type variable, an index, a bean reference, a member the
 * declared type does not have, or a method overloaded with as many arguments (all of them
 * are registered, the one called depends on the arguments). SpEL then finds the member on
 * the runtime class of the value, which nothing at build time can name, so it is left out
 * rather than guessed. For the same reason a subclass passed where its superclass is
 * declared needs hints of its own.
 *
 * @author redis-lock
 */
final class LockKeyHints {

	private final ReflectionHints hints;

	private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();

	LockKeyHints(ReflectionHints hints) {
		this.hints = hints;
	}

	/**
	 * Register the members that a parsed key template of a method navigates.
	 * @param key the parsed template
	 * @param method the annotated method, whose parameters the template starts at
	 */
	void register(LockKey key, Method method) {
		for (LockKeyEvaluator.Segment segment : key.segments()) {
			if (segment.expression() instanceof SpelExpression spel) {
				visit(spel.getAST(), method);
			}
		}
	}

	private void visit(SpelNode node, Method method) {
		if (node instanceof CompoundExpression && node.getChild(0) instanceof VariableReference variable) {
			ResolvableType type = variableType(variable.toStringAST().substring(1), method);
			for (int i = 1; i < node.getChildCount() && type != null; i++) {
				type = step(type, node.getChild(i));
			}
		}
		// Arguments of method calls and operands may hold chains of their own
		for (int i = 0; i < node.getChildCount(); i++) {
			visit(node.getChild(i), method);
		}
	}

	private @Nullable ResolvableType variableType(String name, Method method) {
		if (name.equals("root")) {
			return ResolvableType.forClass(LockExpressionRoot.class);
		}
		int index;
		if (LockKeyEvaluator.POSITIONAL.matcher(name).matches()) {
			index = Integer.parseInt(name.substring(1));
		}
		else {
			@Nullable String[] names = this.parameterNames.getParameterNames(method);
			index = (names != null) ? Arrays.asList(names).indexOf(name) : -1;
		}
		return (index >= 0 && index < method.getParameterCount()) ? ResolvableType.forMethodParameter(method, index)
				: null;
	}

	/**
	 * Register the members one step of a chain calls on a type.
	 * @return the type the step leads to, or {@code null} where the chain stops
	 */
	private @Nullable ResolvableType step(ResolvableType type, SpelNode node) {
		Class<?> target = type.resolve();
		if (target == null || target == Object.class) {
			return null;
		}
		List<Method> members = (node instanceof PropertyOrFieldReference property)
				? accessor(target, property.getName()) : (node instanceof MethodReference call)
						? methods(target, call.getName(), call.getChildCount()) : List.of();
		members.forEach((member) -> this.hints.registerMethod(member, ExecutableMode.INVOKE));
		return (members.size() == 1) ? ResolvableType.forMethodParameter(new MethodParameter(members.get(0), -1), type)
				: null;
	}

	private static List<Method> accessor(Class<?> type, String property) {
		if (type.isRecord()) {
			for (RecordComponent component : type.getRecordComponents()) {
				if (component.getName().equals(property)) {
					return List.of(component.getAccessor());
				}
			}
		}
		String suffix = StringUtils.capitalize(property);
		Method getter = getter(type, "get" + suffix);
		if (getter == null) {
			Method is = getter(type, "is" + suffix);
			getter = (is != null && (is.getReturnType() == boolean.class || is.getReturnType() == Boolean.class)) ? is
					: null;
		}
		if (getter == null) {
			getter = getter(type, property);
		}
		return (getter != null) ? List.of(getter) : List.of();
	}

	private static @Nullable Method getter(Class<?> type, String name) {
		Method method = ClassUtils.getMethodIfAvailable(type, name);
		return (method != null && method.getReturnType() != void.class) ? method : null;
	}

	private static List<Method> methods(Class<?> type, String name, int argumentCount) {
		return Arrays.stream(type.getMethods())
			.filter((method) -> method.getName().equals(name) && method.getParameterCount() == argumentCount)
			.filter((method) -> !method.isBridge())
			.toList();
	}

}
