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
 * The grammar, scanned left to right: {@code ##} is a literal {@code #}; {@code #{}
 * starts an expression that ends at the matching {@code }} (braces inside SpEL string
 * literals ignored); {@code #} and a Java identifier start begin a short reference of
 * identifier characters, and of {@code .} where an identifier start follows, so the
 * {@code :} of {@code "#id:x"} and the final {@code .} of {@code "#id."} are literal. A
 * short reference followed by {@code (} or {@code [} is rejected, as it would silently
 * drop the call or index, and so is any other {@code #}. Other characters are literal.
 *
 * <p>
 * Parsing checks each variable an expression refers to ({@code #order}, {@code #p0},
 * {@code #root}), so that a wrong name or a missing {@code -parameters} flag fails at
 * start-up instead of evaluating to {@code null} on each call. Unlike other
 * {@link CachedExpressionEvaluator} subclasses it caches nothing: the parsed
 * {@link LockKey} lives in its method's {@link LockMethodSpec}.
 * @author redis-lock
 */
public class LockKeyEvaluator extends CachedExpressionEvaluator implements BeanFactoryAware {

	/** A parameter by position: {@code #p0} or {@code #a0}. */
	static final Pattern POSITIONAL = Pattern.compile("[pa]\\d+");

	private final StandardEvaluationContext sharedContext = new StandardEvaluationContext();

	/** Create an evaluator with a default SpEL parser. */
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

	/** Resolve {@code @name} bean references in key expressions against this factory. */
	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		this.sharedContext.setBeanResolver(new BeanFactoryResolver(beanFactory));
	}

	/**
	 * Parse and check a key template, once per annotated method and template.
	 * @throws LockConfigurationException naming the problem and its fix
	 */
	LockKey parse(String template, Method method, Class<?> targetClass) {
		List<Segment> segments;
		try {
			segments = split(template);
		}
		catch (IllegalArgumentException ex) {
			throw new LockConfigurationException(targetClass, method, template, ex.getMessage(),
					(ex.getCause() instanceof ParseException) ? "Fix the expression's syntax"
							: "Fix the key template: write '#name', '#p0' or '#{expression}' for the parts taken"
									+ " from the call, and '##' for a literal '#'");
		}
		for (Segment segment : segments) {
			if (segment.expression() instanceof SpelExpression spel) {
				checkVariables(spel.getAST(), segment.source(), template, method, targetClass);
			}
		}
		return new LockKey(template, segments);
	}

	/** Split a template by the grammar above, or throw what is wrong and where. */
	List<Segment> split(String template) {
		List<Segment> segments = new ArrayList<>();
		StringBuilder literal = new StringBuilder();
		int length = template.length();
		int i = 0;
		while (i < length) {
			char c = template.charAt(i);
			char next = (i + 1 < length) ? template.charAt(i + 1) : 0;
			if (c != '#') {
				literal.append(c);
				i++;
			}
			else if (next == '#') {
				literal.append('#');
				i += 2;
			}
			else if (next == '{') {
				int end = closingBrace(template, i + 2);
				if (end < 0) {
					throw new IllegalArgumentException("'#{' at position " + i + " has no matching '}'");
				}
				String expression = template.substring(i + 2, end).trim();
				if (expression.isEmpty()) {
					throw new IllegalArgumentException("'#{}' at position " + i + " is empty");
				}
				flush(literal, segments);
				segments.add(expression("#{" + expression + "}", expression));
				i = end + 1;
			}
			else if (next != 0 && Character.isJavaIdentifierStart(next)) {
				int end = endOfReference(template, i + 1);
				String reference = template.substring(i, end);
				if (end < length && (template.charAt(end) == '(' || template.charAt(end) == '[')) {
					throw new IllegalArgumentException("'" + reference + "' is followed by '" + template.charAt(end)
							+ "', but a short reference ends there; write calls and indexing as #{" + reference
							+ template.charAt(end) + "...}");
				}
				flush(literal, segments);
				segments.add(expression(reference, reference));
				i = end;
			}
			else {
				throw new IllegalArgumentException("'#' at position " + i
						+ " starts no expression; write '##' for a literal '#', '#name' or '#{...}' for an expression");
			}
		}
		flush(literal, segments);
		if (template.isBlank()) {
			throw new IllegalArgumentException("the key is blank");
		}
		return List.copyOf(segments);
	}

	private Segment expression(String source, String text) {
		try {
			return new Segment(source, getParser().parseExpression(text));
		}
		catch (ParseException ex) {
			throw new IllegalArgumentException("'" + source + "' is not a valid SpEL expression: " + ex.getMessage(),
					ex);
		}
	}

	private static int endOfReference(String template, int start) {
		int i = start + 1;
		while (i < template.length()
				&& (Character.isJavaIdentifierPart(template.charAt(i)) || (template.charAt(i) == '.'
						&& i + 1 < template.length() && Character.isJavaIdentifierStart(template.charAt(i + 1))))) {
			i++;
		}
		return i;
	}

	/** Index of the brace closing an expression that starts at {@code start}, or -1. */
	private static int closingBrace(String template, int start) {
		int depth = 0;
		char quote = 0;
		for (int i = start; i < template.length(); i++) {
			char c = template.charAt(i);
			if (quote != 0) {
				// SpEL escapes a quote in a literal by doubling it: this leaves the
				// literal
				// and enters it again.
				quote = (c == quote) ? 0 : quote;
			}
			else if (c == '\'' || c == '"') {
				quote = c;
			}
			else if (c == '{') {
				depth++;
			}
			else if (c == '}') {
				if (depth == 0) {
					return i;
				}
				depth--;
			}
		}
		return -1;
	}

	private static void flush(StringBuilder literal, List<Segment> segments) {
		if (!literal.isEmpty()) {
			segments.add(new Segment(literal.toString(), null));
			literal.setLength(0);
		}
	}

	private void checkVariables(SpelNode node, String source, String template, Method method, Class<?> targetClass) {
		for (int i = 0; i < node.getChildCount(); i++) {
			checkVariables(node.getChild(i), source, template, method, targetClass);
		}
		String name = (node instanceof VariableReference) ? node.toStringAST().substring(1) : null;
		if (name == null || name.equals("root") || name.equals("this")) {
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

	/** Create the evaluation context of one call. */
	EvaluationContext createEvaluationContext(Method method, @Nullable Object[] args, Object target,
			Class<?> targetClass) {
		LockExpressionRoot root = new LockExpressionRoot(method, method.getName(), args, target, targetClass);
		MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(root, method, args,
				getParameterNameDiscoverer());
		this.sharedContext.applyDelegatesTo(context);
		return context;
	}

	/**
	 * Build the key of one call; the context is {@code null} for a literal key.
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

	/** A key template as written, and its literal and expression parts. */
	record LockKey(String template, List<Segment> segments) {

		/** Whether the key is the same on every call, so needs no evaluation context. */
		boolean isLiteral() {
			return this.segments.stream().allMatch((segment) -> segment.expression() == null);
		}

	}

	/** Literal text, or an expression parsed and its source as written. */
	record Segment(String source, @Nullable Expression expression) {

	}

}
