package org.binlogrelay.e2e.servers;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The servers of one test (or one test class), closed together. Get one from {@link
 * ServerFarmExtension} as a test or lifecycle method parameter, or make one with {@link #create()}
 * in a try-with-resources block.
 *
 * <pre>{@code
 * Topology topology = farm.startPrimaryWithReplicas(ServerVersion.MYSQL_9_7, 1);
 * Sysbench.against(topology.primary()).prepare();
 * topology.awaitCaughtUp(Duration.ofSeconds(60));
 * }</pre>
 *
 * Thread-safe.
 */
public final class ServerFarm implements AutoCloseable {

  private final ServerBackend backend;
  private final List<DatabaseServer> servers = new CopyOnWriteArrayList<>();
  private volatile boolean closed;

  public ServerFarm(ServerBackend backend) {
    this.backend = backend;
  }

  /** A farm on the JVM's backend ({@link ServerBackends#shared()}). */
  public static ServerFarm create() {
    return new ServerFarm(ServerBackends.shared());
  }

  public ServerBackend backend() {
    return backend;
  }

  public DatabaseServer start(ServerSpec spec) {
    if (closed) {
      throw new IllegalStateException("This server farm is closed");
    }
    DatabaseServer server = backend.start(spec);
    servers.add(server);
    return server;
  }

  public DatabaseServer start(ServerVersion version, String name) {
    return start(ServerSpec.of(version).named(name));
  }

  /** Makes {@code replica} replicate from {@code source} directly, by GTID auto-positioning. */
  public ReplicationLink replicate(DatabaseServer replica, DatabaseServer source) {
    return ReplicationLink.establish(replica, source);
  }

  /**
   * A primary named {@code primary} and {@code replicaCount} replicas {@code replica1...}
   * replicating from it.
   */
  public Topology startPrimaryWithReplicas(ServerVersion version, int replicaCount) {
    DatabaseServer primary = start(version, "primary");
    List<ReplicationLink> links = new ArrayList<>();
    for (int i = 1; i <= replicaCount; i++) {
      links.add(replicate(start(version, "replica" + i), primary));
    }
    return new Topology(primary, links);
  }

  public List<DatabaseServer> servers() {
    return List.copyOf(servers);
  }

  /** The error log tails of every server of the farm, for failure messages. */
  public String errorLogTails(int lines) {
    StringBuilder text = new StringBuilder();
    for (DatabaseServer server : servers) {
      text.append("=== ").append(server).append(" ===\n").append(server.errorLogTail(lines));
    }
    return text.toString();
  }

  /**
   * Kills and deletes every server of the farm; the first failure is thrown after all were tried.
   */
  @Override
  public void close() {
    closed = true;
    RuntimeException failure = null;
    for (DatabaseServer server : servers) {
      try {
        server.close();
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    servers.clear();
    if (failure != null) {
      throw failure;
    }
  }
}
