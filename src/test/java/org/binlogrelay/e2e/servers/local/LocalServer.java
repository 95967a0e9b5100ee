package org.binlogrelay.e2e.servers.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.binlogrelay.e2e.process.ChildProcesses;
import org.binlogrelay.e2e.process.Tails;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.HostAndPort;
import org.binlogrelay.e2e.servers.ServerException;
import org.binlogrelay.e2e.servers.ServerOptions;
import org.binlogrelay.e2e.servers.ServerSpec;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A server process on this machine, listening on 127.0.0.1 only. Its directory:
 *
 * <pre>
 *   &lt;run dir&gt;/&lt;name&gt;/
 *     data/          the data directory, a copy of the flavour's template
 *     binlog/        binlog.000001 ..., binlog.index   ({@link #binlogDir()}; base name from the spec)
 *     tmp/           its tmpdir (a server deletes every #sql file in its tmpdir at start-up: a shared one,
 *                    such as the /tmp of a sid root, would lose other servers' temporary tables)
 *     error.log      the server's error log
 *     console.log    its stdout and stderr
 *     mysqld.sock, mysqld.pid
 * </pre>
 *
 * Lifecycle methods are synchronized; the SQL methods may be called from any thread.
 */
public final class LocalServer implements DatabaseServer {

  private static final Logger LOG = LoggerFactory.getLogger(LocalServer.class);
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(60);
  private static final int PORT_ATTEMPTS = 5;

  private final String name;
  private volatile ServerSpec spec;
  private final int serverId;
  private final LocalInstallation installation;
  private final Path directory;
  private final FreePorts ports;
  private final Consumer<LocalServer> onClose;

  private volatile int port;
  private Process process;
  private boolean closed;

  LocalServer(
      String name,
      ServerSpec spec,
      int serverId,
      LocalInstallation installation,
      Path directory,
      FreePorts ports,
      Consumer<LocalServer> onClose) {
    this.name = name;
    this.spec = spec;
    this.serverId = serverId;
    this.installation = installation;
    this.directory = directory;
    this.ports = ports;
    this.onClose = onClose;
  }

  /**
   * The first start, on a free port; if another process takes the port first, again on a new one.
   */
  synchronized void startOnFreePort() {
    for (int attempt = 1; ; attempt++) {
      port = ports.next();
      try {
        launchAndAwaitReady();
        return;
      } catch (PortTakenException e) {
        if (attempt == PORT_ATTEMPTS) {
          throw new ServerException(
              this + " found its port taken " + PORT_ATTEMPTS + " times in a row", e);
        }
        LOG.warn("{}: port {} was taken before the server bound it; trying another", name, port);
      }
    }
  }

  @Override
  public synchronized void start() {
    requireOpen();
    if (isRunning()) {
      throw new IllegalStateException(this + " is already running");
    }
    launchAndAwaitReady();
  }

  private void launchAndAwaitReady() {
    Path errorLog = errorLog();
    Path tmpdir = directory.resolve("tmp");
    try {
      Files.createDirectories(tmpdir);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create " + tmpdir, e);
    }
    List<String> options =
        new ArrayList<>(
            List.of(
                "--tmpdir=" + serverPath(tmpdir),
                "--datadir=" + serverPath(directory.resolve("data")),
                "--port=" + port,
                "--bind-address=127.0.0.1",
                "--socket=" + serverPath(directory.resolve("mysqld.sock")),
                "--pid-file=" + pidFile(),
                "--log-error=" + serverPath(errorLog)));
    options.addAll(
        ServerOptions.of(spec, serverId, serverPath(binlogDir().resolve(spec.binlogBaseName()))));
    long errorLogOffset = sizeOf(errorLog);
    long started = System.nanoTime();
    List<String> command = installation.serverCommand(options);
    process = ChildProcesses.start(command, directory, directory.resolve("console.log"), null);
    awaitReady(command, errorLogOffset);
    LOG.info(
        "Started {} in {} ms", this, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
  }

  private void awaitReady(List<String> command, long errorLogOffset) {
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    SQLException lastFailure = null;
    while (true) {
      if (!process.isAlive()) {
        if (textSince(errorLog(), errorLogOffset).contains("Address already in use")) {
          throw new PortTakenException(this + ": port " + port + " is in use");
        }
        throw new ServerException(
            this
                + " exited with code "
                + process.exitValue()
                + " while starting: "
                + String.join(" ", command)
                + "\n"
                + errorLogTail(40));
      }
      try (Connection connection = connect();
          Statement statement = connection.createStatement();
          ResultSet pidFile = statement.executeQuery("SELECT @@global.pid_file")) {
        pidFile.next();
        // Guards against a foreign server that took the port in between: it would answer too.
        if (!pidFile().equals(pidFile.getString(1))) {
          ChildProcesses.kill(process);
          throw new PortTakenException(
              this
                  + ": port "
                  + port
                  + " is answered by another server, whose"
                  + " pid file is "
                  + pidFile.getString(1));
        }
        return;
      } catch (SQLException e) {
        lastFailure = e;
      }
      if (System.nanoTime() > deadline) {
        ChildProcesses.kill(process);
        throw new ServerException(
            this
                + " did not accept connections within "
                + READY_TIMEOUT.toSeconds()
                + " s and was killed; last connection error: "
                + lastFailure.getMessage()
                + "\n"
                + errorLogTail(40),
            lastFailure);
      }
      try {
        // The readiness poll's interval: this loop (not Eventually) also tells "exited" from "not
        // yet" and
        // kills the server when it gives up.
        Thread.sleep(100);
      } catch (InterruptedException e) {
        ChildProcesses.kill(process);
        Thread.currentThread().interrupt();
        throw new ServerException("Interrupted while waiting for " + this + " to start", e);
      }
    }
  }

  @Override
  public synchronized void restart(ServerSpec changed) {
    requireOpen();
    ServerSpec next = spec.requireSameServer(changed);
    stop();
    spec = next;
    LOG.info("Restarting {} with changed options: {}", this, next);
    launchAndAwaitReady();
  }

  @Override
  public ServerSpec spec() {
    return spec;
  }

  @Override
  public synchronized void stop() {
    if (!isRunning()) {
      return;
    }
    long started = System.nanoTime();
    process.destroy();
    try {
      if (!process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        ChildProcesses.kill(process);
        throw new ServerException(
            this
                + " did not shut down within "
                + STOP_TIMEOUT.toSeconds()
                + " s of SIGTERM and was killed\n"
                + errorLogTail(40));
      }
    } catch (InterruptedException e) {
      ChildProcesses.kill(process);
      Thread.currentThread().interrupt();
      throw new ServerException("Interrupted while stopping " + this + "; killed it", e);
    }
    LOG.info(
        "Stopped {} (exit code {}) in {} ms",
        this,
        process.exitValue(),
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
  }

  @Override
  public synchronized void kill() {
    if (isRunning()) {
      ChildProcesses.kill(process);
      LOG.info("Killed {} with SIGKILL", this);
    }
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (process != null && process.isAlive()) {
        ChildProcesses.kill(process);
      }
      Directories.delete(directory);
    } finally {
      onClose.accept(this);
    }
  }

  @Override
  public synchronized boolean isRunning() {
    return process != null && process.isAlive();
  }

  /** The running server process, if any; for tests of the harness itself. */
  public synchronized Optional<ProcessHandle> processHandle() {
    return isRunning() ? Optional.of(process.toHandle()) : Optional.empty();
  }

  /** The server's directory (see the class comment); deleted by {@link #close()}. */
  public Path directory() {
    return directory;
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

  @Override
  public HostAndPort peerAddress() {
    return address();
  }

  @Override
  public Path binlogDir() {
    return directory.resolve("binlog");
  }

  @Override
  public String errorLogTail(int lines) {
    Path console = directory.resolve("console.log");
    String tail = Tails.of(errorLog(), lines);
    return sizeOf(console) > 0 ? tail + Tails.of(console, Math.min(lines, 20)) : tail;
  }

  private Path errorLog() {
    return directory.resolve("error.log");
  }

  private String pidFile() {
    return serverPath(directory.resolve("mysqld.pid"));
  }

  private String serverPath(Path hostPath) {
    return installation.serverPath(hostPath);
  }

  private void requireOpen() {
    if (closed) {
      throw new IllegalStateException(this + " is closed");
    }
  }

  private static long sizeOf(Path file) {
    try {
      return Files.exists(file) ? Files.size(file) : 0;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the size of " + file, e);
    }
  }

  private static String textSince(Path file, long offset) {
    try {
      byte[] bytes = Files.exists(file) ? Files.readAllBytes(file) : new byte[0];
      int from = (int) Math.min(offset, bytes.length);
      return new String(bytes, from, bytes.length - from, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + file, e);
    }
  }

  @Override
  public String toString() {
    return name
        + " ("
        + installation.flavor().displayName()
        + " "
        + installation.reportedVersion()
        + " at 127.0.0.1:"
        + port
        + ")";
  }

  /** The server could not bind its port; the caller may try another one. */
  private static final class PortTakenException extends ServerException {

    private static final long serialVersionUID = 1L;

    PortTakenException(String message) {
      super(message);
    }
  }
}
