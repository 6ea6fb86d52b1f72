package io.github.redislock;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.BeanUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.javapoet.ClassName;
import org.springframework.util.ClassUtils;

import io.github.redislock.actuate.endpoint.RedisLocksEndpoint;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockProperties;
import io.github.redislock.autoconfigure.endpoint.RedisLocksEndpointAutoConfiguration;
import io.github.redislock.autoconfigure.fencing.FencedRedisAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The runtime hints of an application using redis-lock, processed ahead of time as
 * {@code spring-boot:process-aot} processes it: everything the library loads from the
 * classpath or reflectively is covered, so that a native image needs no hints written by
 * hand for it. Some hints are the library's own (its {@code @ImportRuntimeHints} and
 * {@code aot.factories}), the others come from Spring's processing of its annotations;
 * each is checked here. Key templates over the application's types are covered by
 * {@code LockKeyBeanRegistrationAotProcessorTests}.
 */
class RedisLockRuntimeHintsTests {

	private static final RuntimeHints hints = processAheadOfTime();

	private static RuntimeHints processAheadOfTime() {
		AtomicReference<RuntimeHints> processed = new AtomicReference<>();
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisLockAutoConfiguration.class,
					FencedRedisAutoConfiguration.class, RedisLocksEndpointAutoConfiguration.class))
			.withPropertyValues("management.endpoints.web.exposure.include=redislocks")
			.prepare((context) -> {
				DefaultGenerationContext generationContext = new DefaultGenerationContext(
						new ClassNameGenerator(ClassName.get("com.example", "AotTest")), new InMemoryGeneratedFiles());
				new ApplicationContextAotGenerator().processAheadOfTime(
						(GenericApplicationContext) context.getSourceApplicationContext(), generationContext);
				processed.set(generationContext.getRuntimeHints());
			});
		return processed.get();
	}

	@Test
	void luaScriptsAreResources() throws IOException {
		Resource[] scripts = new PathMatchingResourcePatternResolver()
			.getResources("classpath*:io/github/redislock/**/*.lua");
		assertThat(scripts).hasSizeGreaterThan(10);
		for (Resource script : scripts) {
			String path = script.getURL().getPath();
			String name = path.substring(path.indexOf("io/github/redislock/"));
			assertThat(RuntimeHintsPredicates.resource().forResource(name)).as(name).accepts(hints);
		}
	}

	@Test
	void keyExpressionRootIsReadable() {
		// Read by RecordComponentAccessor, as record components
		Class<?> root = ClassUtils.resolveClassName("io.github.redislock.annotation.LockExpressionRoot", null);
		assertThat(root.getRecordComponents()).hasSize(5)
			.allSatisfy((component) -> assertThat(invocable(component.getAccessor())).accepts(hints));
	}

	@Test
	void endpointResponseCanBeSerialized() throws NoSuchMethodException {
		// From Boot's processing of @ReadOperation: the method and its return type,
		// with the types it holds, for Jackson
		assertThat(invocable(RedisLocksEndpoint.class.getMethod("locks"))).accepts(hints);
		Stream
			.of(RedisLocksEndpoint.RedisLocksDescriptor.class, RedisLocksEndpoint.HeldLockDescriptor.class,
					RedisLocksEndpoint.AwaitedLockDescriptor.class, RedisLocksEndpoint.PermitsDescriptor.class)
			.flatMap((type) -> Stream.of(type.getRecordComponents()))
			.map(RecordComponent::getAccessor)
			.forEach((accessor) -> assertThat(invocable(accessor)).as(accessor.toString()).accepts(hints));
	}

	@Test
	void configurationPropertiesCanBeBound() {
		// From Boot's processing of @ConfigurationProperties: each setter, nested
		// groups included
		Stream
			.of(RedisLockProperties.class, RedisLockProperties.Watchdog.class, RedisLockProperties.Observations.class,
					RedisLockProperties.Observations.Metrics.class)
			.flatMap((type) -> Stream.of(BeanUtils.getPropertyDescriptors(type)))
			.map((property) -> (property.getWriteMethod() != null) ? property.getWriteMethod()
					: property.getReadMethod())
			.filter((method) -> method.getDeclaringClass() != Object.class)
			.forEach((method) -> assertThat(invocable(method)).as(method.toString()).accepts(hints));
	}

	@Test
	void failureAnalyzerCanBeInstantiated() {
		// Listed in META-INF/spring.factories, which Spring's own hints cover
		Class<?> analyzer = ClassUtils
			.resolveClassName("io.github.redislock.autoconfigure.LockConfigurationFailureAnalyzer", null);
		assertThat(RuntimeHintsPredicates.reflection()
			.onConstructorInvocation(BeanUtils.getResolvableConstructor(analyzer))).accepts(hints);
	}

	private static Predicate<RuntimeHints> invocable(Method method) {
		return RuntimeHintsPredicates.reflection().onMethodInvocation(method);
	}

}
