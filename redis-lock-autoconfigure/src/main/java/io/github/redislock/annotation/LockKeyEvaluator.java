package io.github.redislock.annotation;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.CachedExpressionEvaluator;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.StandardEvaluationContext;
import org.springframework.util.ObjectUtils;

import io.github.redislock.LockKeyException;

/**
 * Parses the key templates of {@link io.github.redislock.DistributedLock
 *
 * @DistributedLock} methods and evaluates them against a call's arguments. Thread-safe;
 * one instance serves every annotated bean of a context.
 *
 * <p>
 * Parsing checks each variable an expression refers to ({@code #order}, {@code #p0},
 * {@code #root}), so that a wrong name or a missing {@code -parameters} flag fails at
 * start-up instead of evaluating to {@code null} on each call. Bean references
 * ({@code @name}) resolve against the bean factory this evaluator is given.
 *
 * <p>
 * Unlike other {@link CachedExpressionEvaluator} subclasses, it keeps no cache of parsed
 * expressions: each template is parsed once, when the spec of its method is built, and
 * the parsed {@link LockKey} lives in that spec, the one cache of the key pipeline.
 * @author redis-lock
 */
public class LockKeyEvaluator extends CachedExpressionEvaluator implements BeanFactoryAware {

	/** A parameter by position: {@code #p0} or {@code #a0}. */
	static final Pattern POSITIONAL = Pattern.compile("[pa]\\d+");

	private final StandardEvaluationContext sharedContext = new StandardEvaluationContext();

	/**
	 * Create an evaluator with a default SpEL parser.
	 */
	public LockKeyEvaluator() {
		this(new SpelExpressionParser());
	}

	/**
	 * Create an evaluator with the given SpEL parser, for example one configured to
	 * compile expressions.
	 * @param parser the parser
	 */
	public LockKeyEvaluator(SpelExpressionParser parser) {
		super(parser);
		this.sharedContext.addPropertyAccessor(new RecordComponentAccessor());
	}

	/**
	 * Resolve {@code @name} bean references in key expressions against the given bean
	 * factory.
	 * @param beanFactory the bean factory
	 */
	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		this.sharedContext.setBeanResolver(new BeanFactoryResolver(beanFactory));
	}

	/**
	 * Parse and check a key template. Called once per annotated method and template; the
	 * caller keeps the result.
	 * @throws LockConfigurationException naming the problem and its fix
	 */
	LockKey parse(String template, Method method, Class<?> targetClass) {
		LockKeyTemplate parsed;
		try {
			parsed = LockKeyTemplate.parse(template);
		}
		catch (IllegalArgumentException ex) {
			throw new LockConfigurationException(targetClass, method, template, ex.getMessage(),
					"Fix the key template: write '#name', '#p0' or '#{expression}' for the parts taken from the call,"
							+ " and '##' for a literal '#'");
		}
		List<Segment> segments = new ArrayList<>();
		for (LockKeyTemplate.Part part : parsed.parts()) {
			if (!part.isExpression()) {
				segments.add(new Segment(part.text(), null));
				continue;
			}
			String source = part.source();
			Expression expression;
			try {
				expression = getParser().parseExpression(part.text());
			}
			catch (ParseException ex) {
				throw new LockConfigurationException(targetClass, method, template,
						"'" + source + "' is not a valid SpEL expression: " + ex.getMessage(),
						"Fix the expression's syntax");
			}
			if (expression instanceof SpelExpression spel) {
				checkVariables(spel.getAST(), source, template, method, targetClass);
			}
			segments.add(new Segment(source, expression));
		}
		return new LockKey(template, List.copyOf(segments));
	}

	private void checkVariables(SpelNode node, String source, String template, Method method, Class<?> targetClass) {
		if (node instanceof VariableReference) {
			checkVariable(node.toStringAST().substring(1), source, template, method, targetClass);
		}
		for (int i = 0; i < node.getChildCount(); i++) {
			checkVariables(node.getChild(i), source, template, method, targetClass);
		}
	}

	private void checkVariable(String name, String source, String template, Method method, Class<?> targetClass) {
		if (name.equals("root") || name.equals("this")) {
			return;
		}
		int count = method.getParameterCount();
		if (POSITIONAL.matcher(name).matches()) {
			if (Integer.parseInt(name.substring(1)) >= count) {
				throw new LockConfigurationException(targetClass, method, template, "'#" + name + "' in '" + source
						+ "' refers to a parameter that does not exist: the method has " + count + " parameter(s)",
						"Count parameters from 0: #p0 is the first");
			}
			return;
		}
		@Nullable String[] names = getParameterNameDiscoverer().getParameterNames(method);
		if (names == null) {
			throw new LockConfigurationException(targetClass, method, template,
					"'#" + name + "' in '" + source + "' refers to a parameter by name, but the parameter names of "
							+ method.getDeclaringClass().getName() + " are not available: it was compiled without"
							+ " -parameters",
					"Compile with the -parameters flag (Maven: <parameters>true</parameters> in the"
							+ " maven-compiler-plugin configuration; Spring Boot's build plugins set it), or refer to"
							+ " the parameter by position, as #p0 for the first");
		}
		if (!Arrays.asList(names).contains(name)) {
			throw new LockConfigurationException(targetClass, method, template,
					"'#" + name + "' in '" + source + "' names no parameter of the method; its parameters are "
							+ Arrays.toString(names),
					"Use one of the parameter names, #p0 for the first parameter, or #root.methodName");
		}
	}

	/**
	 * Create the evaluation context of one call.
	 */
	EvaluationContext createEvaluationContext(Method method, @Nullable Object[] args, Object target,
			Class<?> targetClass) {
		LockExpressionRoot root = new LockExpressionRoot(method, method.getName(), args, target, targetClass);
		MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(root, method, args,
				getParameterNameDiscoverer());
		this.sharedContext.applyDelegatesTo(context);
		return context;
	}

	/**
	 * Build the key of one call; the context may be {@code null} for a
	 * {@linkplain LockKey#isLiteral() literal} key.
	 * @throws LockKeyException when a part is {@code null}, blank, or fails
	 */
	String evaluate(LockKey key, @Nullable EvaluationContext context, Method method) {
		StringBuilder result = new StringBuilder();
		for (Segment segment : key.segments()) {
			if (segment.expression() == null) {
				result.append(segment.source());
				continue;
			}
			String value;
			try {
				Object part = segment.expression().getValue(context);
				value = (part != null) ? ObjectUtils.nullSafeToString(part) : null;
			}
			catch (RuntimeException ex) {
				throw new LockKeyException(key.template(), segment.source(), method, "failed: " + ex.getMessage(), ex);
			}
			if (value == null || value.isBlank()) {
				throw new LockKeyException(key.template(), segment.source(), method,
						(value == null) ? "evaluated to null" : "evaluated to a blank string", null);
			}
			result.append(value);
		}
		return result.toString();
	}

	/**
	 * A parsed key template.
	 *
	 * @param template the template as written
	 * @param segments its literal and expression parts
	 */
	record LockKey(String template, List<Segment> segments) {

		/** Whether the key is the same on every call, so needs no evaluation context. */
		boolean isLiteral() {
			return this.segments.stream().allMatch((segment) -> segment.expression() == null);
		}

	}

	/**
	 * Literal text, or an expression and its source as written in the template.
	 *
	 * @param source the literal text, or the expression as written
	 * @param expression the parsed expression, or {@code null} for literal text
	 */
	record Segment(String source, @Nullable Expression expression) {

	}

}
