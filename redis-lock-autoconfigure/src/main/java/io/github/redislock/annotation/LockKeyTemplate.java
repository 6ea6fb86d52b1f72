package io.github.redislock.annotation;

import java.util.ArrayList;
import java.util.List;

/**
 * A key template of {@link io.github.redislock.DistributedLock @DistributedLock} split
 * into literal text and expressions. Text only: the expressions are parsed by
 * {@link LockKeyEvaluator}.
 *
 * <p>
 * The grammar, scanned left to right:
 * <ul>
 * <li>{@code ##} is a literal {@code #};</li>
 * <li>{@code #{} starts an expression that ends at the matching {@code }}, braces inside
 * being balanced and braces inside SpEL string literals ({@code '...'} or {@code "..."})
 * ignored;</li>
 * <li>{@code #} followed by a Java identifier start starts a short reference: identifier
 * characters, and {@code .} when an identifier start follows it. It ends at the first
 * other character, so the {@code :} of {@code "#id:x"} and the final {@code .} of
 * {@code "#id."} are literal. A short reference directly followed by {@code (} or
 * {@code [} is rejected, since it would silently drop the call or index;</li>
 * <li>any other {@code #} is rejected; every other character is literal.</li>
 * </ul>
 *
 * @author redis-lock
 */
final class LockKeyTemplate {

	private final String source;

	private final List<Part> parts;

	private LockKeyTemplate(String source, List<Part> parts) {
		this.source = source;
		this.parts = List.copyOf(parts);
	}

	/**
	 * Split a template into parts.
	 * @param source the template
	 * @return the parsed template
	 * @throws IllegalArgumentException with what is wrong and where
	 */
	static LockKeyTemplate parse(String source) {
		List<Part> parts = new ArrayList<>();
		StringBuilder literal = new StringBuilder();
		int length = source.length();
		int i = 0;
		while (i < length) {
			char c = source.charAt(i);
			char next = (i + 1 < length) ? source.charAt(i + 1) : 0;
			if (c != '#') {
				literal.append(c);
				i++;
			}
			else if (next == '#') {
				literal.append('#');
				i += 2;
			}
			else if (next == '{') {
				int end = closingBrace(source, i + 2);
				if (end < 0) {
					throw new IllegalArgumentException("'#{' at position " + i + " has no matching '}'");
				}
				String expression = source.substring(i + 2, end).trim();
				if (expression.isEmpty()) {
					throw new IllegalArgumentException("'#{}' at position " + i + " is empty");
				}
				flush(literal, parts);
				parts.add(new Part(expression, Kind.EXPRESSION));
				i = end + 1;
			}
			else if (next != 0 && Character.isJavaIdentifierStart(next)) {
				int end = endOfReference(source, i + 1);
				String reference = source.substring(i, end);
				if (end < length && (source.charAt(end) == '(' || source.charAt(end) == '[')) {
					throw new IllegalArgumentException("'" + reference + "' is followed by '" + source.charAt(end)
							+ "', but a short reference ends there; write calls and indexing as #{" + reference
							+ source.charAt(end) + "...}");
				}
				flush(literal, parts);
				parts.add(new Part(reference, Kind.REFERENCE));
				i = end;
			}
			else {
				throw new IllegalArgumentException("'#' at position " + i
						+ " starts no expression; write '##' for a literal '#', '#name' or '#{...}' for an expression");
			}
		}
		flush(literal, parts);
		if (parts.stream().allMatch((part) -> part.kind() == Kind.LITERAL) && source.isBlank()) {
			throw new IllegalArgumentException("the key is blank");
		}
		return new LockKeyTemplate(source, parts);
	}

	private static int endOfReference(String source, int start) {
		int i = start + 1;
		while (i < source.length()) {
			char c = source.charAt(i);
			if (Character.isJavaIdentifierPart(c)) {
				i++;
			}
			else if (c == '.' && i + 1 < source.length() && Character.isJavaIdentifierStart(source.charAt(i + 1))) {
				i += 2;
			}
			else {
				break;
			}
		}
		return i;
	}

	/** Index of the brace closing an expression that starts at {@code start}, or -1. */
	private static int closingBrace(String source, int start) {
		int depth = 0;
		char quote = 0;
		for (int i = start; i < source.length(); i++) {
			char c = source.charAt(i);
			if (quote != 0) {
				// SpEL escapes a quote inside a literal by doubling it, which this
				// toggles
				// out of and back into the literal.
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

	private static void flush(StringBuilder literal, List<Part> parts) {
		if (!literal.isEmpty()) {
			parts.add(new Part(literal.toString(), Kind.LITERAL));
			literal.setLength(0);
		}
	}

	String source() {
		return this.source;
	}

	List<Part> parts() {
		return this.parts;
	}

	@Override
	public String toString() {
		return this.source;
	}

	/**
	 * Literal text, a short reference, or a braced expression.
	 *
	 * @param text the literal text, or the SpEL expression: a short reference as written,
	 * a braced expression without its {@code #{ }} delimiters
	 * @param kind the kind of part
	 */
	record Part(String text, Kind kind) {

		boolean isExpression() {
			return this.kind != Kind.LITERAL;
		}

		/** The part as written in the template, for messages. */
		String source() {
			return (this.kind == Kind.EXPRESSION) ? "#{" + this.text + "}" : this.text;
		}

	}

	/**
	 * Kinds of template parts.
	 */
	enum Kind {

		/** Literal text. */
		LITERAL,

		/** A short reference such as {@code #order.id}. */
		REFERENCE,

		/** A braced expression, {@code #{...}}. */
		EXPRESSION

	}

}
