package org.binlogrelay.e2e.servers.docker;

import static org.binlogrelay.protocol.testing.Eventually.eventually;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.Ports;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.binlogrelay.e2e.servers.Credentials;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.HostAndPort;
import org.binlogrelay.e2e.servers.ServerException;
import org.binlogrelay.e2e.servers.ServerSpec;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.testcontainers.containers.GenericContainer;

/**
 * A server in a container of the official {@code mysql} or {@code mariadb} image, with the same
 * options as a local server. Binlogs are in the data directory {@code /var/lib/mysql} ({@code
 * --log-bin=binlog}, or the spec's base name); {@link #binlogDir()} copies them out. Stop, kill and
 * start act on the container, which keeps its data.
 *
 * <p>Untested on the machine where the harness was written (no Docker engine there).
 */
public final class DockerServer implements DatabaseServer {

  static final int PORT = 3306;
  static final Credentials ROOT = new Credentials("root", "root-pass");
  private static final String DATA_DIR = "/var/lib/mysql/";
  private static final Duration READY_TIMEOUT = Duration.ofMinutes(2);

  private final String name;
  private final ServerSpec spec;
  private final int serverId;
  private final GenericContainer<?> container;
  private final Consumer<DockerServer> onClose;

  private volatile HostAndPort address;
  private boolean closed;

  DockerServer(
      String name,
      ServerSpec spec,
      int serverId,
      GenericContainer<?> container,
      Consumer<DockerServer> onClose) {
    this.name = name;
    this.spec = spec;
    this.serverId = serverId;
    this.container = container;
    this.onClose = onClose;
  }

  /**
   * Starts the container, checks the version, creates the harness users (not binlogged) and resets
   * the binlogs, so that the server starts with {@code binlog.000001} and no GTIDs, like a local
   * one.
   */
  synchronized void create() {
    container.start();
    address = new HostAndPort(container.getHost(), container.getMappedPort(PORT));
    awaitReady(ROOT);
    String reported = queryAs(ROOT, "SELECT @@version");
    if (!spec.version().matches(reported)) {
      throw new ServerException(
          "Image "
              + spec.version().dockerImage()
              + " runs version "
              + reported
              + ", not "
              + spec.version());
    }
    List<String> statements = new ArrayList<>();
    statements.add("SET SESSION sql_log_bin=0");
    statements.addAll(flavor().dialect().createUserStatements());
    statements.add(flavor().dialect().resetBinlogsStatement());
    executeAs(ROOT, statements);
  }

  @Override
  public synchronized void start() {
    if (isRunning()) {
      throw new IllegalStateException(this + " is already running");
    }
    docker().startContainerCmd(container.getContainerId()).exec();
    Ports.Binding[] bindings =
        docker()
            .inspectContainerCmd(container.getContainerId())
            .exec()
            .getNetworkSettings()
            .getPorts()
            .getBindings()
            .get(ExposedPort.tcp(PORT));
    address = new HostAndPort(container.getHost(), Integer.parseInt(bindings[0].getHostPortSpec()));
    awaitReady(credentials());
  }

  /**
   * Not supported: a container's command line is fixed when it is created, and recreating it would
   * lose the data directory's identity the harness promises (same server, same data, same port).
   */
  @Override
  public void restart(ServerSpec changed) {
    spec.requireSameServer(changed);
    throw new UnsupportedOperationException(
        "The docker backend cannot restart "
            + this
            + " with other options"
            + " (a container's command line is fixed at creation); run this test with -Dservers=local");
  }

  @Override
  public ServerSpec spec() {
    return spec;
  }

  @Override
  public synchronized void stop() {
    if (isRunning()) {
      docker().stopContainerCmd(container.getContainerId()).withTimeout(60).exec();
    }
  }

  @Override
  public synchronized void kill() {
    if (isRunning()) {
      docker().killContainerCmd(container.getContainerId()).withSignal("SIGKILL").exec();
    }
  }

  @Override
  public synchronized boolean isRunning() {
    return !closed
        && Boolean.TRUE.equals(
            docker()
                .inspectContainerCmd(container.getContainerId())
                .exec()
                .getState()
                .getRunning());
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      container.stop();
    } finally {
      onClose.accept(this);
    }
  }

  /** A fresh copy, in a new temporary directory, of the binlog index and every file it lists. */
  @Override
  public Path binlogDir() {
    try {
      Path target = Files.createTempDirectory("binlog-relay-e2e-" + name + "-");
      String indexName = spec.binlogBaseName() + ".index";
      Path index = target.resolve(indexName);
      container.copyFileFromContainer(DATA_DIR + indexName, index.toString());
      for (String line : Files.readAllLines(index)) {
        String file = Path.of(line.strip()).getFileName().toString();
        if (!file.isEmpty()) {
          container.copyFileFromContainer(DATA_DIR + file, target.resolve(file).toString());
        }
      }
      return target;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot copy the binlogs out of " + this, e);
    }
  }

  @Override
  public String errorLogTail(int lines) {
    List<String> all = container.getLogs().lines().toList();
    return "--- container log of "
        + this
        + " (last lines) ---\n"
        + String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()))
        + "\n";
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public ServerVersion version() {
    return spec.version();
  }

  @Override
  public int serverId() {
    return serverId;
  }

  @Override
  public HostAndPort address() {
    return address;
  }

  @Override
  public HostAndPort peerAddress() {
    return new HostAndPort(name, PORT);
  }

  private DockerClient docker() {
    return container.getDockerClient();
  }

  private void awaitReady(Credentials credentials) {
    try {
      eventually(
          READY_TIMEOUT,
          this + " accepting connections as " + credentials,
          () -> {
            try (Connection connection = connectAs(credentials)) {
              return connection.isValid(5) ? "valid" : "a connection that is not valid";
            } catch (SQLException e) {
              return e.getMessage();
            }
          },
          answer -> answer.equals("valid"));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ServerException("Interrupted while waiting for " + this, e);
    } catch (AssertionError e) {
      throw new ServerException(e.getMessage() + "\n" + errorLogTail(40), e);
    }
  }

  private Connection connectAs(Credentials credentials) throws SQLException {
    return DriverManager.getConnection(jdbcUrl(), credentials.user(), credentials.password());
  }

  private void executeAs(Credentials credentials, List<String> statements) {
    try (Connection connection = connectAs(credentials);
        Statement statement = connection.createStatement()) {
      for (String sql : statements) {
        statement.execute(sql);
      }
    } catch (SQLException e) {
      throw new ServerException("Setting up " + this + " failed: " + e.getMessage(), e);
    }
  }

  private String queryAs(Credentials credentials, String sql) {
    try (Connection connection = connectAs(credentials);
        Statement statement = connection.createStatement();
        var resultSet = statement.executeQuery(sql)) {
      resultSet.next();
      return resultSet.getString(1);
    } catch (SQLException e) {
      throw new ServerException("Query failed on " + this + ": " + sql + ": " + e.getMessage(), e);
    }
  }

  @Override
  public String toString() {
    return name + " (" + spec.version().dockerImage() + " at " + address + ")";
  }
}
