package org.binlogrelay.e2e.servers.docker;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.HostAndPort;
import org.binlogrelay.e2e.servers.ServerBackend;
import org.binlogrelay.e2e.servers.ServerOptions;
import org.binlogrelay.e2e.servers.ServerSpec;
import org.testcontainers.Testcontainers;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * Servers in Docker containers through Testcontainers, any version with an official image ({@link
 * org.binlogrelay.e2e.servers.ServerVersion#dockerImage()}). The containers share one network,
 * where each is reachable under its server name; Testcontainers' Ryuk container removes them if the
 * JVM dies.
 *
 * <p>Plain {@link GenericContainer}s rather than Testcontainers' MySQL/MariaDB modules: those check
 * readiness with their own JDBC driver (MariaDB's is not on the classpath) and create a non-root
 * user limited to one schema; the harness needs its own users and options on both flavours alike.
 *
 * <p>Untested on the machine where the harness was written (no Docker engine there).
 */
public final class DockerServerBackend implements ServerBackend {

  private final AtomicInteger sequence = new AtomicInteger(1);
  private final Set<DockerServer> servers = ConcurrentHashMap.newKeySet();
  private Network network;

  @Override
  public String name() {
    return "docker";
  }

  @Override
  public DatabaseServer start(ServerSpec spec) {
    int number = sequence.getAndIncrement();
    int serverId = spec.serverId() != 0 ? spec.serverId() : number;
    String name = spec.name() + "-" + number;
    GenericContainer<?> container =
        new GenericContainer<>(DockerImageName.parse(spec.version().dockerImage()))
            .withNetwork(network())
            .withNetworkAliases(name)
            .withExposedPorts(DockerServer.PORT)
            .withEnv(spec.flavor().dialect().dockerEnvironment(DockerServer.ROOT.password()))
            .withCommand(
                ServerOptions.of(spec, serverId, spec.binlogBaseName()).toArray(String[]::new))
            .waitingFor(Wait.forListeningPort().withStartupTimeout(Duration.ofMinutes(3)));
    DockerServer server = new DockerServer(name, spec, serverId, container, servers::remove);
    servers.add(server);
    try {
      server.create();
      return server;
    } catch (RuntimeException e) {
      server.close();
      throw e;
    }
  }

  @Override
  public HostAndPort hostPortForServers(int port) {
    Testcontainers.exposeHostPorts(port);
    return new HostAndPort("host.testcontainers.internal", port);
  }

  private synchronized Network network() {
    if (network == null) {
      network = Network.newNetwork();
    }
    return network;
  }

  @Override
  public void close() {
    for (DockerServer server : List.copyOf(servers)) {
      server.close();
    }
    synchronized (this) {
      if (network != null) {
        network.close();
        network = null;
      }
    }
  }
}
