package io.github.redislock.test;

import java.util.Arrays;
import java.util.concurrent.CountDownLatch;

/**
 * Main class run by {@link JavaProcessTests} in another JVM.
 */
final class ChildMain {

	private ChildMain() {
	}

	public static void main(String[] args) throws InterruptedException {
		String[] rest = Arrays.copyOfRange(args, 1, args.length);
		switch (args[0]) {
			case "ready" -> {
				System.out.println("READY " + String.join(" ", rest));
				System.out.flush();
				// Stay alive until killed
				new CountDownLatch(1).await();
			}
			case "tick" -> {
				for (int i = 0;; i++) {
					System.out.println("tick " + i);
					System.out.flush();
					Thread.sleep(20);
				}
			}
			case "exit" -> {
				System.err.println("exiting with " + rest[0]);
				System.exit(Integer.parseInt(rest[0]));
			}
			default -> throw new IllegalArgumentException("Unknown mode " + args[0]);
		}
	}

}
