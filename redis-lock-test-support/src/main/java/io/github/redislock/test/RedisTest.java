package io.github.redislock.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs a test class with {@link RedisServerExtension}: parameters of type
 * {@link RedisServer} get one server shared by the class and its nested classes, running
 * and empty before each test.
 */
@Target({ ElementType.TYPE, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@ExtendWith(RedisServerExtension.class)
public @interface RedisTest {

	/**
	 * Marks a {@link RedisServer} parameter that gets its own new server instead of the
	 * shared one, closed after the test method (after the class for a {@code @BeforeAll}
	 * parameter).
	 */
	@Target(ElementType.PARAMETER)
	@Retention(RetentionPolicy.RUNTIME)
	@Documented
	@interface Dedicated {

	}

}
