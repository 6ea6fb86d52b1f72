package io.github.redislock.annotation;

import java.lang.reflect.Method;

/**
 * Root object of key expressions, as {@code #root}: {@code #root.methodName},
 * {@code #root.args[0]}, {@code #root.targetClass.simpleName}.
 *
 * @param method the annotated method
 * @param methodName the name of the method
 * @param args the arguments of the call
 * @param target the target object
 * @param targetClass the class of the target object
 * @author redis-lock
 */
record LockExpressionRoot(Method method, String methodName, Object[] args, Object target, Class<?> targetClass) {

}
