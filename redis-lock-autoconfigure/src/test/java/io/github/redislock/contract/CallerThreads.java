package io.github.redislock.contract;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads tests start to call locks: platform threads, or virtual threads when the
 * system property {@value #VIRTUAL_PROPERTY} is {@code true}, as the JDK 25 pass of
 * {@code .ci/run} sets it, so that the same contract runs with its callers on virtual
 * threads.
 * <p>
 * The tests compile with release 17, which has no {@code Thread.ofVirtual()}: it is
 * looked up by method handles, and only when the property asks for virtual threads.
 */
public final class CallerThreads {

	/** The system property that starts callers as virtual threads. */
	public static final String VIRTUAL_PROPERTY = "redislock.test.virtual-callers";

	private CallerThreads() {
	}

	/**
	 * Whether callers are virtual threads in this run.
	 * @return the value of {@value #VIRTUAL_PROPERTY}
	 */
	public static boolean areVirtual() {
		return Boolean.getBoolean(VIRTUAL_PROPERTY);
	}

	/**
	 * A factory of caller threads named {@code prefix1}, {@code prefix2}, …, so that a
	 * test can tell its callers from threads that other tests left behind.
	 * @param prefix the start of the thread names
	 * @return the factory
	 * @throws IllegalStateException when virtual callers are asked for on a JDK without
	 * virtual threads
	 */
	public static ThreadFactory factory(String prefix) {
		if (areVirtual()) {
			return virtualFactory(prefix);
		}
		AtomicInteger count = new AtomicInteger();
		return (task) -> new Thread(task, prefix + count.incrementAndGet());
	}

	private static ThreadFactory virtualFactory(String prefix) {
		try {
			Class<?> builder = Class.forName("java.lang.Thread$Builder");
			Class<?> virtualBuilder = Class.forName("java.lang.Thread$Builder$OfVirtual");
			MethodHandles.Lookup lookup = MethodHandles.publicLookup();
			MethodHandle ofVirtual = lookup.findStatic(Thread.class, "ofVirtual",
					MethodType.methodType(virtualBuilder));
			MethodHandle name = lookup.findVirtual(virtualBuilder, "name",
					MethodType.methodType(virtualBuilder, String.class, long.class));
			MethodHandle factory = lookup.findVirtual(builder, "factory", MethodType.methodType(ThreadFactory.class));
			return (ThreadFactory) factory.invoke(name.invoke(ofVirtual.invoke(), prefix, 1L));
		}
		catch (Throwable ex) {
			throw new IllegalStateException(VIRTUAL_PROPERTY
					+ " asks for virtual threads, which need JDK 21 or later; this is JDK " + Runtime.version(), ex);
		}
	}

}
