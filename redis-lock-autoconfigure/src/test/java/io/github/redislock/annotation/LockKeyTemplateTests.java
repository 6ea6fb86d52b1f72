package io.github.redislock.annotation;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for the key template grammar of {@link LockKeyEvaluator#split(String)}.
 */
class LockKeyTemplateTests {

	@Test
	void textWithoutHashIsOneLiteral() {
		assertThat(parts("orders:daily")).containsExactly(literal("orders:daily"));
	}

	@Test
	void shortReferenceEndsAtFirstCharacterThatCannotContinueIt() {
		assertThat(parts("product:#id")).containsExactly(literal("product:"), expression("#id"));
		assertThat(parts("order:#order.id:line:#p1")).containsExactly(literal("order:"), expression("#order.id"),
				literal(":line:"), expression("#p1"));
	}

	@Test
	void shortReferenceFollowsPropertyChains() {
		assertThat(parts("#order.customer.name-x")).containsExactly(expression("#order.customer.name"), literal("-x"));
	}

	@Test
	void dotNotFollowedByIdentifierIsLiteral() {
		assertThat(parts("#id.")).containsExactly(expression("#id"), literal("."));
		assertThat(parts("#id.#p1")).containsExactly(expression("#id"), literal("."), expression("#p1"));
		assertThat(parts("#id.1")).containsExactly(expression("#id"), literal(".1"));
	}

	@Test
	void rootAndPositionalReferencesAreShortReferences() {
		assertThat(parts("#root.methodName/#a0/#p12")).containsExactly(expression("#root.methodName"), literal("/"),
				expression("#a0"), literal("/"), expression("#p12"));
	}

	@Test
	void bracedExpressionEndsAtMatchingBrace() {
		assertThat(parts("user:#{#user.name.toLowerCase()}")).containsExactly(literal("user:"),
				braced("#user.name.toLowerCase()"));
		assertThat(parts("#{ {1,2}.size() }:x")).containsExactly(braced("{1,2}.size()"), literal(":x"));
	}

	@Test
	void bracesInsideStringLiteralsDoNotCount() {
		assertThat(parts("#{'}' + \"{\" + 'it''s }'}")).containsExactly(braced("'}' + \"{\" + 'it''s }'"));
	}

	@Test
	void doubleHashIsLiteralHash() {
		assertThat(parts("a##b")).containsExactly(literal("a#b"));
		assertThat(parts("##{x}##id")).containsExactly(literal("#{x}#id"));
	}

	@Test
	void closingBraceOutsideExpressionIsLiteral() {
		assertThat(parts("a}b{c")).containsExactly(literal("a}b{c"));
	}

	@Test
	void unclosedExpressionIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> split("user:#{#user.name"))
			.withMessage("'#{' at position 5 has no matching '}'");
		assertThatIllegalArgumentException().isThrownBy(() -> split("#{'}")).withMessageContaining("no matching '}'");
	}

	@Test
	void emptyExpressionIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> split("x:#{ }"))
			.withMessage("'#{}' at position 2 is empty");
	}

	@Test
	void hashStartingNoExpressionIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> split("issue#42"))
			.withMessageContaining("'#' at position 5 starts no expression; write '##' for a literal '#'");
		assertThatIllegalArgumentException().isThrownBy(() -> split("end#")).withMessageContaining("position 3");
	}

	@Test
	void shortReferenceFollowedByCallOrIndexIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> split("u:#user.getName()"))
			.withMessageContaining("'#user.getName' is followed by '('")
			.withMessageContaining("#{#user.getName(...}");
		assertThatIllegalArgumentException().isThrownBy(() -> split("#ids[0]"))
			.withMessageContaining("'#ids' is followed by '['");
	}

	@Test
	void blankKeyIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> split("")).withMessage("the key is blank");
		assertThatIllegalArgumentException().isThrownBy(() -> split("  ")).withMessage("the key is blank");
	}

	private static List<Part> parts(String template) {
		return split(template).stream()
			.map((segment) -> new Part(segment.source(), segment.expression() != null))
			.toList();
	}

	private static List<LockKeyEvaluator.Segment> split(String template) {
		return new LockKeyEvaluator().split(template);
	}

	@Test
	void partsKnowTheirSource() {
		assertThat(parts("a##b:#id:#{ #p0 }")).extracting(Part::source).containsExactly("a#b:", "#id", ":", "#{#p0}");
	}

	private static Part literal(String text) {
		return new Part(text, false);
	}

	private static Part expression(String text) {
		return new Part(text, true);
	}

	private static Part braced(String text) {
		return new Part("#{" + text + "}", true);
	}

	/** A segment as written, and whether it is an expression. */
	private record Part(String source, boolean expression) {

	}

}
