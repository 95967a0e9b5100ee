package org.binlogrelay.e2e.servers.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.Volume;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.binlogrelay.e2e.servers.Credentials;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.HostAndPort;
import org.binlogrelay.e2e.servers.ServerException;
import org.binlogrelay.e2e.servers.ServerOptions;
import org.binlogrelay.e2e.servers.ServerSpec;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.AbstractWaitStrategy;
import org.testcontainers.utility.DockerImageName;

/**
 * A server in a container of an image honouring the official {@code mysql} / {@code mariadb}
 * image's contract ({@link ServerVersion#dockerImage()}), with the same options as a local server.
 *
 * <p>The container shares the host's network stack ({@code --network host}) and its server listens
 * on {@code 127.0.0.1:<port>}, a free port of this machine: tests, the in-JVM relay and the other
 * servers all meet on the loopback interface exactly as with local processes, so a server
 * replicates from a relay on the host at {@code 127.0.0.1} and no traffic leaves this machine. (A
 * bridge network would need the relay to listen on the bridge's gateway address, and
 * Testcontainers' own way to reach host ports, {@code host.testcontainers.internal}, needs its sshd
 * image, which cannot be pulled here.)
 *
 * <p>The data directory {@code /var/lib/mysql} is a named volume of the server, so that {@link
 * #restart(ServerSpec)} can replace the container (whose command line is fixed) by one with the new
 * options on the same data and port. Binlogs are in the data directory ({@code --log-bin=binlog},
 * or the spec's base name); {@link #binlogDir()} copies them out. Stop, kill and start act on the
 * container: {@link #kill()} is a SIGKILL of the server, which is the container's process 1.
 *
 * <p>Lifecycle methods are synchronized; the SQL methods may be called from any thread.
 */
public final class DockerServer implements DatabaseServer {

  static final Credentials ROOT = new Credentials("root", "root-pass");
  static final String LABEL = "org.binlogrelay.e2e";

  private static final Logger LOG = LoggerFactory.getLogger(DockerServer.class);
  private static final String DATA_DIR = "/var/lib/mysql/";
  private static final Duration READY_TIMEOUT = Duration.ofMinutes(2);
  private static final int STOP_TIMEOUT_SECONDS = 60;

  private final String name;
  private final String containerPrefix;
  private final int serverId;
  private final int port;
  private final Consumer<DockerServer> onClose;

  private volatile ServerSpec spec;
  private GenericContainer<?> container;
  private int generation;
  private boolean closed;

  DockerServer(
      String name,
      String containerPrefix,
      ServerSpec spec,
      int serverId,
      int port,
      Consumer<DockerServer> onClose) {
    this.name = name;
    this.containerPrefix = containerPrefix;
    this.spec = spec;
    this.serverId = serverId;
    this.port = port;
    this.onClose = onClose;
  }

  /**
   * Starts the first container, checks the version, creates the harness users (not binlogged) and
   * resets the binlogs, so that the server starts with {@code binlog.000001} and no GTIDs, like a
   * local one.
   */
  synchronized void create() {
    long started = System.nanoTime();
    launch();
    awaitReady(ROOT);
    String reported = queryAs(ROOT, "SELECT @@version");
    if (!spec.version().matches(reported)) {
      throw new ServerException(
          "Image "
              + spec.version().dockerImage()
              + " runs version "
              + reported
              + ", not "
              + spec.version()
              + " (choose the image with -D"
              + spec.version().dockerImageProperty()
              + "=...)");
    }
    List<String> statements = new ArrayList<>();
    statements.add("SET SESSION sql_log_bin=0");
    statements.addAll(flavor().dialect().createUserStatements());
    statements.add(flavor().dialect().resetBinlogsStatement());
    executeAs(ROOT, statements);
    LOG.info(
        "Started {} in {} ms", this, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
  }

  /** Creates and starts a container for the current spec on the server's volume and port. */
  private void launch() {
    String image = spec.version().dockerImage();
    List<String> command = new ArrayList<>(List.of("--port=" + port, "--bind-address=127.0.0.1"));
    command.addAll(ServerOptions.of(spec, serverId, spec.binlogBaseName()));
    String containerName = containerPrefix + name + (generation == 0 ? "" : "-" + generation);
    generation++;
    GenericContainer<?> next =
        new GenericContainer<>(DockerImageName.parse(image))
            .withNetworkMode("host")
            .withEnv(spec.flavor().dialect().dockerEnvironment(ROOT.password()))
            .withLabels(Map.of(LABEL, containerPrefix))
            .withCommand(command.toArray(String[]::new))
            // Readiness is awaitReady's SQL poll: the entrypoint first runs a temporary server
            // without networking, so an open port means the real one.
            .waitingFor(new NoWait())
            .withCreateContainerCmdModifier(
                cmd -> {
                  cmd.withName(containerName);
                  cmd.getHostConfig()
                      .withBinds(new Bind(volumeName(), new Volume(DATA_DIR.replaceAll("/$", ""))));
                });
    container = next;
    try {
      next.start();
    } catch (RuntimeException e) {
      if (errorLogTail(400).contains("Address already in use")) {
        throw new PortTakenException(this + ": port " + port + " is in use");
      }
      throw new ServerException(
          "Cannot start the container of "
              + this
              + " from image "
              + image
              + ": "
              + e.getMessage()
              + "\n"
              + errorLogTail(40),
          e);
    }
  }

  /** The named volume holding the data directory; the backend deletes it on {@link #close()}. */
  String volumeName() {
    return containerPrefix + name + "-data";
  }

  @Override
  public synchronized void start() {
    requireOpen();
    if (isRunning()) {
      throw new IllegalStateException(this + " is already running");
    }
    long started = System.nanoTime();
    docker().startContainerCmd(container.getContainerId()).exec();
    awaitReady(credentials());
    LOG.info(
        "Started {} again in {} ms",
        this,
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
  }

  /**
   * Stops the server and replaces its container by one with {@code changed}'s options, on the same
   * data volume and port (the image's entrypoint finds the data directory initialised and starts
   * the server on it).
   */
  @Override
  public synchronized void restart(ServerSpec changed) {
    requireOpen();
    ServerSpec next = spec.requireSameServer(changed);
    stop();
    removeContainer();
    spec = next;
    LOG.info("Restarting {} with changed options: {}", this, next);
    launch();
    awaitReady(credentials());
  }

  @Override
  public ServerSpec spec() {
    return spec;
  }

  @Override
  public synchronized void stop() {
    if (isRunning()) {
      long started = System.nanoTime();
      docker()
          .stopContainerCmd(container.getContainerId())
          .withTimeout(STOP_TIMEOUT_SECONDS)
          .exec();
      LOG.info(
          "Stopped {} (exit code {}) in {} ms",
          this,
          inspect().getState().getExitCodeLong(),
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    }
  }

  @Override
  public synchronized void kill() {
    if (isRunning()) {
      docker().killContainerCmd(container.getContainerId()).withSignal("SIGKILL").exec();
      LOG.info("Killed {} with SIGKILL", this);
    }
  }

  @Override
  public synchronized boolean isRunning() {
    return !closed
        && container != null
        && container.getContainerId() != null
        && Boolean.TRUE.equals(inspect().getState().getRunning());
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      removeContainer();
      try {
        dockerClient().removeVolumeCmd(volumeName()).exec();
      } catch (NotFoundException e) {
        // never created: the first container did not start
      }
    } finally {
      onClose.accept(this);
    }
  }

  private void removeContainer() {
    if (container != null && container.getContainerId() != null) {
      try {
        docker().removeContainerCmd(container.getContainerId()).withForce(true).exec();
      } catch (NotFoundException e) {
        // already gone
      }
    }
  }

  /**
   * A fresh copy, in a new temporary directory, of the binlog index and every file it lists (the
   * container may be stopped).
   */
  @Override
  public synchronized Path binlogDir() {
    try {
      Path target = Files.createTempDirectory("binlog-relay-e2e-" + name + "-");
      String indexName = spec.binlogBaseName() + ".index";
      Path index = target.resolve(indexName);
      container.copyFileFromContainer(DATA_DIR + indexName, index.toString());
      for (String line : Files.readAllLines(index)) {
        Path listed = Path.of(line.strip()).getFileName();
        if (listed != null && !listed.toString().isEmpty()) {
          String file = listed.toString();
          container.copyFileFromContainer(DATA_DIR + file, target.resolve(file).toString());
        }
      }
      return target;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot copy the binlogs out of " + this, e);
    }
  }

  @Override
  public synchronized String errorLogTail(int lines) {
    if (container == null || container.getContainerId() == null) {
      return "--- no container log of " + this + ": the container was not created ---\n";
    }
    List<String> all;
    try {
      all = container.getLogs().lines().toList();
    } catch (RuntimeException e) {
      return "--- container log of " + this + " unreadable: " + e.getMessage() + " ---\n";
    }
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
    return new HostAndPort("127.0.0.1", port);
  }

  /** The same as {@link #address()}: the containers share the host's loopback interface. */
  @Override
  public HostAndPort peerAddress() {
    return address();
  }

  private DockerClient docker() {
    return container.getDockerClient();
  }

  private static DockerClient dockerClient() {
    return DockerClientFactory.instance().client();
  }

  private InspectContainerResponse inspect() {
    return docker().inspectContainerCmd(container.getContainerId()).exec();
  }

  private void requireOpen() {
    if (closed) {
      throw new IllegalStateException(this + " is closed");
    }
  }

  /**
   * Polls until the server answers SQL as {@code credentials}; fails at once, with the container's
   * log, when the container exits, and after {@link #READY_TIMEOUT}.
   */
  private void awaitReady(Credentials credentials) {
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    SQLException lastFailure = null;
    while (true) {
      InspectContainerResponse.ContainerState state = inspect().getState();
      if (!Boolean.TRUE.equals(state.getRunning())) {
        String message =
            this + " exited with code " + state.getExitCodeLong() + " while starting\n";
        if (errorLogTail(400).contains("Address already in use")) {
          throw new PortTakenException(message + "port " + port + " is in use");
        }
        throw new ServerException(message + errorLogTail(40));
      }
      try (Connection connection = connectAs(credentials)) {
        if (connection.isValid(5)) {
          return;
        }
      } catch (SQLException e) {
        lastFailure = e;
      }
      if (System.nanoTime() > deadline) {
        throw new ServerException(
            this
                + " did not accept connections as "
                + credentials
                + " within "
                + READY_TIMEOUT.toSeconds()
                + " s; last connection error: "
                + (lastFailure == null ? "none" : lastFailure.getMessage())
                + "\n"
                + errorLogTail(40),
            lastFailure);
      }
      try {
        // The readiness poll's interval; this loop (not Eventually) also tells "exited" from "not
        // yet".
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ServerException("Interrupted while waiting for " + this + " to start", e);
      }
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
        ResultSet resultSet = statement.executeQuery(sql)) {
      resultSet.next();
      return resultSet.getString(1);
    } catch (SQLException e) {
      throw new ServerException("Query failed on " + this + ": " + sql + ": " + e.getMessage(), e);
    }
  }

  @Override
  public String toString() {
    return name + " (" + spec.version().dockerImage() + " at 127.0.0.1:" + port + ")";
  }

  /** The server's port was taken by another process before the server bound it. */
  static final class PortTakenException extends ServerException {

    private static final long serialVersionUID = 1L;

    PortTakenException(String message) {
      super(message);
    }
  }

  /** No wait in {@code start()}: {@link #awaitReady} polls SQL instead. */
  private static final class NoWait extends AbstractWaitStrategy {
    @Override
    protected void waitUntilReady() {}
  }
}
