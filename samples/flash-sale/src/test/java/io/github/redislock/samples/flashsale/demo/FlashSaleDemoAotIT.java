package io.github.redislock.samples.flashsale.demo;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The demo, shortened, with its two instances in AOT mode: started with
 * {@code -Dspring.aot.enabled=true} on the classes {@code spring-boot:process-aot}
 * generated in this build, which is why it runs with the integration tests, after them.
 * The demo itself checks that each instance logged its AOT-processed start.
 */
class FlashSaleDemoAotIT {

	@Test
	void demoPassesWithInstancesProcessedAheadOfTime() throws Exception {
		FlashSaleDemo demo = FlashSaleDemo
			.of(new String[] { FlashSaleDemo.ARGUMENT, FlashSaleDemo.AOT_ARGUMENT, "--purchases=200" });
		try {
			DemoResult result = demo.run();
			LoadResult locked = result.locked();
			assertThat(locked.failed()).as(locked.firstFailure()).isZero();
			assertThat(locked.oversold(result.stock())).isZero();
			assertThat(locked.sold()).isEqualTo(result.stock());
			// The same, each sale paid, never more payments at once than the limit
			LoadResult paid = result.paid().load();
			assertThat(paid.failed()).as(paid.firstFailure()).isZero();
			assertThat(paid.sold()).isEqualTo(result.stock());
			assertThat(result.paid().peak()).isLessThanOrEqualTo(result.paid().limit());
			// The paused holder's late write: sold again with plain writes, refused
			// with fenced ones
			assertThat(result.paused().combined().oversold(PausedHolderRound.STOCK)).isPositive();
			assertThat(result.fenced().heldStatus()).as(result.fenced().heldBody()).isEqualTo(409);
			assertThat(result.fenced().combined().oversold(PausedHolderRound.STOCK)).isZero();
			assertThat(result.passed()).isTrue();
		}
		finally {
			demo.stop();
		}
	}

}
