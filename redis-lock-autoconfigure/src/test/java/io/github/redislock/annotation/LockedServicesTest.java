package io.github.redislock.annotation;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.boot.test.context.SpringBootTest;

/**
 * A test of the {@link LockedServicesConfiguration} application, whose context (and Redis
 * server) all such tests share.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@SpringBootTest(classes = LockedServicesConfiguration.class)
@interface LockedServicesTest {

}
