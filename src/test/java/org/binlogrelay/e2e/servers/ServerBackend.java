package org.binlogrelay.e2e.servers;

/**
 * Where servers run: local processes ({@code org.binlogrelay.e2e.servers.local.LocalServerBackend})
 * or Docker containers ({@code org.binlogrelay.e2e.servers.docker.DockerServerBackend}). One
 * backend per JVM, chosen by {@link ServerBackends#shared()} from the system property {@code
 * binlogrelay.servers}. Thread-safe.
 */
public interface ServerBackend extends AutoCloseable {

  /** {@code local} or {@code docker}. */
  String name();

  /**
   * Starts a server as specified and returns once it answers SQL as {@link Credentials#TEST}. A
   * server that cannot start is cleaned up and reported by a {@link ServerException} carrying its
   * error log's tail.
   */
  DatabaseServer start(ServerSpec spec);

  /**
   * The address at which servers of this backend reach a port listening on this machine, e.g. a
   * relay under test that a replica should replicate from: 127.0.0.1 for local servers, the
   * Testcontainers host alias for containers.
   */
  HostAndPort hostPortForServers(int port);

  /** Kills and deletes every server of this backend. */
  @Override
  void close();
}
