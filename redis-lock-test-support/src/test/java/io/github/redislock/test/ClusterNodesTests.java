package io.github.redislock.test;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ClusterNodes}.
 */
class ClusterNodesTests {

	// Redis 7 adds ",hostname" to the address; 6.2 does not
	private static final String REPLY = """
			aaa 127.0.0.1:30001@40001, myself,master - 0 0 1 connected 0-5460 7000
			bbb 127.0.0.1:30002@40002,node-b master - 0 1426238316232 2 connected 5461-6999 7001-10922 [5461->-ccc]
			ccc 127.0.0.1:30003@40003 master - 0 1426238318243 3 connected 10923-16383 [5461-<-bbb]
			ddd 127.0.0.1:30004@40004 slave aaa 0 1426238317239 1 connected
			eee :0@0 master,fail?,noaddr - 1426238316232 1426238316232 0 disconnected
			""";

	@Test
	void parsesRolesPortsAndSlotRangesOfBothFormats() {
		ClusterNodes view = ClusterNodes.parse(REPLY);
		assertThat(view.myself().id()).isEqualTo("aaa");
		assertThat(view.primaries()).extracting(ClusterNodes.Node::id).containsExactly("aaa", "bbb", "ccc");
		assertThat(view.replicasOf("aaa")).extracting(ClusterNodes.Node::port).containsExactly(30004);
		assertThat(view.byPort(30002)).hasValueSatisfying((node) -> assertThat(node.slots()).hasSize(2));
		assertThat(view.byPort(0)).hasValueSatisfying((node) -> {
			assertThat(node.isConnected()).isFalse();
			assertThat(node.isFailing()).isTrue();
		});
	}

	@Test
	void ownerOfASlotIgnoresImportingAndMigratingMarks() {
		ClusterNodes view = ClusterNodes.parse(REPLY);
		assertThat(view.ownerOf(5461)).hasValueSatisfying((node) -> assertThat(node.id()).isEqualTo("bbb"));
		assertThat(view.ownerOf(7000)).hasValueSatisfying((node) -> assertThat(node.id()).isEqualTo("aaa"));
		assertThat(view.ownerOf(16383)).hasValueSatisfying((node) -> assertThat(node.id()).isEqualTo("ccc"));
	}

	@Test
	void parsesImportingAndMigratingMarksAsOpenSlots() {
		ClusterNodes view = ClusterNodes.parse(REPLY);
		assertThat(view.byPort(30002)).hasValueSatisfying(
				(node) -> assertThat(node.openSlots()).containsExactly(new ClusterNodes.OpenSlot(5461, false, "ccc")));
		assertThat(view.byPort(30003)).hasValueSatisfying(
				(node) -> assertThat(node.openSlots()).containsExactly(new ClusterNodes.OpenSlot(5461, true, "bbb")));
		assertThat(view.myself().openSlots()).isEmpty();
	}

	@Test
	void assignmentIsEqualForViewsThatAgreeWhateverTheirFlags() {
		String other = REPLY.replace(" myself,master ", " master ").replace("slave aaa", "myself,slave aaa");
		assertThat(ClusterNodes.parse(other).assignment((port) -> port != 0))
			.isEqualTo(ClusterNodes.parse(REPLY).assignment((port) -> port != 0));
		String moved = REPLY.replace("0-5460 7000", "0-5460");
		assertThat(ClusterNodes.parse(moved).assignment((port) -> port != 0))
			.isNotEqualTo(ClusterNodes.parse(REPLY).assignment((port) -> port != 0));
	}

}
