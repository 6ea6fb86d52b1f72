package io.github.redislock.contract;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.internal.HostAndPort;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.MappingSocketAddressResolver;

import io.github.redislock.test.FaultProxy;
import io.github.redislock.test.RedisServer;

/**
 * A fault proxy in front of each of several Redis servers, and client resources that send
 * a client to the proxy of whichever of them it is told to connect to: the nodes a
 * cluster announces, the primary a sentinel names. Other addresses, such as the
 * sentinels', are reached directly.
 */
final class ProxiedServers implements AutoCloseable {

	private final Map<Integer, FaultProxy> proxies = new LinkedHashMap<>();

	private final ClientResources resources;

	ProxiedServers(List<RedisServer> servers) {
		for (RedisServer server : servers) {
			this.proxies.put(server.port(), FaultProxy.start(server.host(), server.port()));
		}
		this.resources = ClientResources.builder()
			.socketAddressResolver(MappingSocketAddressResolver.create(this::throughProxy))
			.build();
	}

	/** The proxies, one per server. */
	List<FaultProxy> proxies() {
		return List.copyOf(this.proxies.values());
	}

	/** Client resources that resolve each server's address to its proxy. */
	ClientResources clientResources() {
		return this.resources;
	}

	private HostAndPort throughProxy(HostAndPort address) {
		FaultProxy proxy = this.proxies.get(address.getPort());
		return (proxy != null) ? HostAndPort.of(proxy.host(), proxy.port()) : address;
	}

	@Override
	public void close() {
		this.resources.shutdown(0, 5, TimeUnit.SECONDS);
		this.proxies.values().forEach(FaultProxy::close);
	}

}
