package io.github.redislock.observation;

import java.util.regex.Pattern;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link LockNames}.
 */
class LockNamesTests {

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			order:42                                           | order:*
			order:42:item:7                                    | order:*:item:*
			report:daily                                       | report:daily
			tenant-7:invoice:3f2a9c0e-1b2c-4d5e-8f90-a1b2c3d4e5f6 | *:invoice:*
			user/1234/cart                                     | user/*/cart
			job.v2.run                                         | job.*.run
			""")
	void defaultNamesReplaceEverySegmentWithADigit(String key, String name) {
		assertThat(LockNames.defaults().nameOf(key, null)).isEqualTo(name);
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			order:42     | order:*
			user:alice   | user:*
			""")
	void customPatternReplacesItsMatches(String key, String name) {
		assertThat(new LockNames(Pattern.compile("(?<=:)[^:]+$")).nameOf(key, null)).isEqualTo(name);
	}

	@ParameterizedTest
	@CsvSource({ "order:42", "report:daily" })
	void requestNameComesFirst(String key) {
		assertThat(LockNames.defaults().nameOf(key, "Orders.pay")).isEqualTo("Orders.pay");
	}

}
