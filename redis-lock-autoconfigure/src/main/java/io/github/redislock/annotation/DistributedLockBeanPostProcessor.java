package io.github.redislock.annotation;

import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.aop.Advisor;
import org.springframework.aop.Pointcut;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.AopInfrastructureBean;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.ComposablePointcut;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.context.EmbeddedValueResolverAware;
import org.springframework.scheduling.annotation.AsyncAnnotationAdvisor;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringValueResolver;
import org.springframework.util.function.SingletonSupplier;

import io.github.redislock.DistributedConcurrencyLimit;
import io.github.redislock.DistributedLock;
import io.github.redislock.LockOperations;
import io.github.redislock.ReactiveLockOperations;

/**
 * Applies {@link DistributedLock @DistributedLock} and
 * {@link DistributedConcurrencyLimit @DistributedConcurrencyLimit} to the beans whose
 * methods (or the interface methods they implement) carry them, directly or as a
 * meta-annotation. Both are run by one interceptor: a concurrency limit takes a
 * {@link io.github.redislock.LockMode#PERMIT permit} of its key where a lock method takes
 * its locks, and everything below applies to both.
 *
 * <p>
 * Its advisor goes before existing advisors, so the lock wraps the advice of
 * {@code @Transactional} and {@code @Cacheable}: the lock is held from before the
 * transaction begins until after it ends. It needs no AspectJ weaver and works with or
 * without an auto-proxy creator. As with any proxy, calls from inside the bean itself are
 * not intercepted. The one advisor it goes after is {@code @Async}'s, whichever
 * post-processor runs first, so that the lock is taken on the executor thread that runs
 * the method, for its whole run.
 *
 * <p>
 * Each annotated bean is checked when it is created: its key templates are parsed and its
 * methods, wait and lease times and fallbacks checked, and a
 * {@link LockConfigurationException} stops the context at the first problem. The
 * {@link LockOperations} bean is looked up on the first locked call, so this
 * post-processor does not create it early; its existence is checked with the first
 * annotated bean, and so is the {@link ReactiveLockOperations} bean's with the first bean
 * whose methods return a publisher or suspend. A {@link LockKeyEvaluator} bean is used
 * when there is one.
 *
 * @author redis-lock
 */
@SuppressWarnings("serial")
public class DistributedLockBeanPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor
		implements EmbeddedValueResolverAware {

	private static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Mono",
			DistributedLockBeanPostProcessor.class.getClassLoader());

	private final LockMethodSpec.Cache specs;

	private @Nullable BeanFactory lockBeanFactory;

	private volatile boolean lockOperationsChecked;

	private volatile boolean reactiveLockOperationsChecked;

	/**
	 * Create a post-processor that locks with the context's {@link LockOperations} bean.
	 */
	public DistributedLockBeanPostProcessor() {
		setBeforeExistingAdvisors(true);
		Supplier<LockKeyEvaluator> evaluator = SingletonSupplier.of(this::evaluator);
		this.specs = new LockMethodSpec.Cache(evaluator);
		// One advisor for both annotations: a concurrency limit is run as a lock is
		Pointcut pointcut = new ComposablePointcut(new AnnotationMatchingPointcut(null, DistributedLock.class, true))
			.union(new AnnotationMatchingPointcut(null, DistributedConcurrencyLimit.class, true));
		this.advisor = new DefaultPointcutAdvisor(pointcut,
				new DistributedLockInterceptor(this.specs, evaluator, SingletonSupplier.of(this::lockOperations),
						REACTOR_PRESENT ? ReactiveLockInterception.lookingUp(() -> this.lockBeanFactory) : null));
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		super.setBeanFactory(beanFactory);
		this.lockBeanFactory = beanFactory;
	}

	@Override
	public void setEmbeddedValueResolver(StringValueResolver resolver) {
		this.specs.setValueResolver(resolver);
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (!(bean instanceof AopInfrastructureBean)) {
			Class<?> targetClass = AopProxyUtils.ultimateTargetClass(bean);
			if (isEligible(targetClass)) {
				boolean reactive = this.specs.validate(targetClass);
				checkLockOperations(targetClass);
				if (reactive) {
					checkReactiveLockOperations(targetClass);
				}
				int async = asyncAdvisorIndex(bean, targetClass);
				if (async >= 0) {
					((Advised) bean).addAdvisor(async + 1, this.advisor);
					return bean;
				}
			}
		}
		return super.postProcessAfterInitialization(bean, beanName);
	}

	/**
	 * The position of the {@code @Async} advisor of a bean that it already advises, or
	 * -1. The lock must be taken inside it, on the executor thread that runs the method:
	 * advised before existing advisors, as {@code @Transactional} wants, it would be
	 * taken and released on the caller's thread, around the hand-off only. The other
	 * order needs nothing: the {@code AsyncAnnotationBeanPostProcessor}, if it runs
	 * later, puts its advisor before ours.
	 * @throws LockConfigurationException when the proxy is frozen, so that the lock could
	 * only be advised by a proxy around it
	 */
	private int asyncAdvisorIndex(Object bean, Class<?> targetClass) {
		if (!(bean instanceof Advised advised)) {
			return -1;
		}
		Advisor[] advisors = advised.getAdvisors();
		for (int i = advisors.length - 1; i >= 0; i--) {
			if (advisors[i] instanceof AsyncAnnotationAdvisor) {
				if (advised.isFrozen()) {
					throw new LockConfigurationException(ClassUtils.getUserClass(targetClass), null, null,
							"its @Async proxy is frozen, so the lock could only be taken around it, on the caller's"
									+ " thread, and released before the method runs",
							"Do not freeze the proxy (ProxyConfig.setFrozen) of a bean with @DistributedLock or"
									+ " @DistributedConcurrencyLimit methods");
				}
				return isEligible(AopUtils.getTargetClass(bean)) ? i : -1;
			}
		}
		return -1;
	}

	private void checkLockOperations(Class<?> targetClass) {
		if (this.lockOperationsChecked || !(this.lockBeanFactory instanceof ListableBeanFactory beanFactory)) {
			return;
		}
		if (BeanFactoryUtils.beanNamesForTypeIncludingAncestors(beanFactory, LockOperations.class, true,
				false).length == 0) {
			throw new LockConfigurationException(ClassUtils.getUserClass(targetClass), null, null,
					"there is no LockOperations bean to lock with",
					"Give the application a RedisConnectionFactory (add spring-boot-starter-data-redis and set"
							+ " spring.data.redis.*), from which RedisLockAutoConfiguration creates a LockTemplate,"
							+ " or define a LockTemplate bean");
		}
		this.lockOperationsChecked = true;
	}

	private void checkReactiveLockOperations(Class<?> targetClass) {
		if (this.reactiveLockOperationsChecked || !(this.lockBeanFactory instanceof ListableBeanFactory beanFactory)) {
			return;
		}
		if (BeanFactoryUtils.beanNamesForTypeIncludingAncestors(beanFactory, ReactiveLockOperations.class, true,
				false).length == 0) {
			throw new LockConfigurationException(ClassUtils.getUserClass(targetClass), null, null,
					"it has methods that return a publisher or suspend, but there is no ReactiveLockOperations bean"
							+ " to lock them with",
					"Let ReactiveLockAutoConfiguration create a ReactiveLockTemplate (it needs Reactor on the"
							+ " classpath and a single LockEngine bean), or define a ReactiveLockOperations bean");
		}
		this.reactiveLockOperationsChecked = true;
	}

	private LockOperations lockOperations() {
		if (this.lockBeanFactory == null) {
			throw new IllegalStateException("DistributedLockBeanPostProcessor needs a BeanFactory");
		}
		return this.lockBeanFactory.getBean(LockOperations.class);
	}

	private LockKeyEvaluator evaluator() {
		BeanFactory beanFactory = this.lockBeanFactory;
		LockKeyEvaluator evaluator = (beanFactory != null)
				? beanFactory.getBeanProvider(LockKeyEvaluator.class).getIfUnique() : null;
		if (evaluator == null) {
			evaluator = new LockKeyEvaluator();
			if (beanFactory != null) {
				evaluator.setBeanFactory(beanFactory);
			}
		}
		return evaluator;
	}

}
