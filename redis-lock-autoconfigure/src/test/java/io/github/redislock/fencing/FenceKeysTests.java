package io.github.redislock.fencing;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import io.github.redislock.test.RedisCluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link FenceKeys}.
 */
class FenceKeysTests {

	@ParameterizedTest
	@CsvSource(delimiterString = " -> ", textBlock = """
			stock:1 -> {stock:1}:fence
			{product:7}:stock -> {product:7}:stock:fence
			stock:{7} -> stock:{7}:fence
			a{b -> {a{b}:fence
			""")
	void fenceKeyIsInTheResourcesSlot(String key, String fenceKey) {
		assertThat(FenceKeys.of(key)).isEqualTo(fenceKey);
		assertThat(RedisCluster.slot(fenceKey)).isEqualTo(RedisCluster.slot(key));
	}

	@ParameterizedTest
	@ValueSource(strings = { "a}b", "{}stock", "{}x{a}" })
	void keyWithAClosingBraceOutsideAHashTagIsRejected(String key) {
		assertThatIllegalArgumentException().isThrownBy(() -> FenceKeys.of(key)).withMessageContaining("hash tag");
	}

}
