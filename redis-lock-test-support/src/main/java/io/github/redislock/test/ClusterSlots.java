package io.github.redislock.test;

import java.nio.charset.StandardCharsets;

/**
 * Computes the Redis Cluster hash slot of a key: CRC16 (XMODEM: polynomial
 * {@code 0x1021}, initial value 0, as in the Redis Cluster specification) of the key's
 * hash tag, or of the whole key if it has none, modulo {@value #COUNT}.
 */
final class ClusterSlots {

	/**
	 * The number of hash slots of a cluster.
	 */
	static final int COUNT = 16384;

	private static final int[] TABLE = table();

	private ClusterSlots() {
	}

	/**
	 * Returns the hash slot of a key, with the hash tag rules of Redis Cluster: if the
	 * key contains a {@code '{'} followed later by a {@code '}'} with at least one byte
	 * in between, only the bytes between the first {@code '{'} and the first {@code '}'}
	 * after it are hashed, so {@code {user}:a} and {@code {user}:b} share a slot; an
	 * empty tag ({@code {}}) counts as no tag.
	 * @param key the key, hashed as UTF-8
	 * @return the slot, from 0 to {@value #COUNT} - 1
	 */
	static int slot(String key) {
		byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
		int start = 0;
		int end = bytes.length;
		int open = indexOf(bytes, (byte) '{', 0);
		if (open >= 0) {
			int close = indexOf(bytes, (byte) '}', open + 1);
			if (close > open + 1) {
				start = open + 1;
				end = close;
			}
		}
		return crc16(bytes, start, end) & (COUNT - 1);
	}

	/**
	 * Returns the CRC16 (XMODEM) of a range of bytes.
	 * @param bytes the bytes
	 * @param start the first index, inclusive
	 * @param end the last index, exclusive
	 * @return the checksum, from 0 to 65535
	 */
	static int crc16(byte[] bytes, int start, int end) {
		int crc = 0;
		for (int i = start; i < end; i++) {
			crc = ((crc << 8) ^ TABLE[((crc >>> 8) ^ bytes[i]) & 0xff]) & 0xffff;
		}
		return crc;
	}

	private static int indexOf(byte[] bytes, byte value, int from) {
		for (int i = from; i < bytes.length; i++) {
			if (bytes[i] == value) {
				return i;
			}
		}
		return -1;
	}

	private static int[] table() {
		int[] table = new int[256];
		for (int i = 0; i < 256; i++) {
			int crc = i << 8;
			for (int bit = 0; bit < 8; bit++) {
				crc = ((crc & 0x8000) != 0) ? (crc << 1) ^ 0x1021 : crc << 1;
			}
			table[i] = crc & 0xffff;
		}
		return table;
	}

}
