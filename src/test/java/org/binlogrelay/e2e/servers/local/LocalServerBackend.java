package org.binlogrelay.e2e.servers.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.binlogrelay.e2e.process.ChildProcesses;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.HostAndPort;
import org.binlogrelay.e2e.servers.ServerBackend;
import org.binlogrelay.e2e.servers.ServerException;
import org.binlogrelay.e2e.servers.ServerSpec;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Servers as local processes of the binaries that {@code scripts/provision-test-servers.sh}
 * installed, one installation per series of {@link ServerVersion#local()}: MySQL 9.7 (in a chroot),
 * MariaDB 10.11 (Debian's, on the host) and MariaDB 11.8 (in a chroot of its own), side by side; a
 * spec's version picks the installation ({@link LocalInstallation#of(ServerVersion)}).
 *
 * <p>Per series and JVM, the first server pays for one template data directory ({@code mysqld
 * --initialize-insecure} or {@code mariadb-install-db}, with the harness users); every server then
 * starts from a copy of it. All files live in a run directory per JVM ({@link RunDirectory}),
 * deleted on {@link #close()} and by a shutdown hook. Thread-safe.
 */
public final class LocalServerBackend implements ServerBackend {

  private static final Logger LOG = LoggerFactory.getLogger(LocalServerBackend.class);

  private final Map<ServerVersion, Template> templates = new HashMap<>();
  private final Map<Path, RunDirectory> runDirectories = new ConcurrentHashMap<>();
  private final Set<LocalServer> servers = ConcurrentHashMap.newKeySet();
  private final AtomicInteger sequence = new AtomicInteger(1);
  private final FreePorts ports = new FreePorts();
  private final Thread shutdownHook = new Thread(this::cleanUpAtExit, "local-server-cleanup");
  private boolean closed;

  public LocalServerBackend() {
    Runtime.getRuntime().addShutdownHook(shutdownHook);
  }

  @Override
  public String name() {
    return "local";
  }

  @Override
  public DatabaseServer start(ServerSpec spec) {
    Template template = template(spec.version());
    LocalInstallation installation = template.installation();
    if (!spec.version().matches(installation.reportedVersion())) {
      throw new ServerException(
          "The local backend's "
              + spec.version()
              + " is "
              + installation
              + ", which reports another series; server "
              + spec.name()
              + " asks for "
              + spec.version()
              + ". Re-provision the servers or run with -Dservers=docker.");
    }
    int number = sequence.getAndIncrement();
    int serverId = spec.serverId() != 0 ? spec.serverId() : number;
    String name = spec.name() + "-" + number;
    Path directory = template.runDirectory().path().resolve(name);
    LocalServer server =
        new LocalServer(name, spec, serverId, installation, directory, ports, servers::remove);
    servers.add(server);
    try {
      long copyStarted = System.nanoTime();
      Directories.copy(template.dataDir(), directory.resolve("data"));
      LOG.info(
          "Copied the template data directory for {} in {} ms",
          name,
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - copyStarted));
      for (String file : installation.filesUniqueToEachCopy()) {
        Files.deleteIfExists(directory.resolve("data").resolve(file));
      }
      Files.createDirectories(server.binlogDir());
      server.startOnFreePort();
      return server;
    } catch (IOException e) {
      server.close();
      throw new UncheckedIOException(
          "Cannot prepare the directory " + directory + " of " + name, e);
    } catch (RuntimeException e) {
      server.close();
      throw e;
    }
  }

  @Override
  public HostAndPort hostPortForServers(int port) {
    return new HostAndPort("127.0.0.1", port);
  }

  /** The servers started here and not yet closed. */
  public List<LocalServer> servers() {
    return List.copyOf(servers);
  }

  /**
   * The run directories of this JVM, one per installation used so far; for tests of the cleanup
   * itself.
   */
  public synchronized List<Path> runDirectories() {
    return runDirectories.values().stream().map(RunDirectory::path).toList();
  }

  private synchronized Template template(ServerVersion version) {
    if (closed) {
      throw new IllegalStateException("The local server backend is closed");
    }
    Template template = templates.get(version);
    if (template == null) {
      long started = System.nanoTime();
      LocalInstallation installation = LocalInstallation.of(version);
      RunDirectory runDirectory =
          runDirectories.computeIfAbsent(installation.runBase(), RunDirectory::create);
      Path workDir =
          runDirectory
              .path()
              .resolve(
                  "template-"
                      + version.flavor().name().toLowerCase(Locale.ROOT)
                      + "-"
                      + version.series());
      Path dataDir = workDir.resolve("data");
      try {
        Files.createDirectories(workDir);
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot create " + workDir, e);
      }
      installation.initializeTemplate(dataDir, workDir);
      template = new Template(installation, runDirectory, dataDir);
      templates.put(version, template);
      LOG.info(
          "Made the {} template data directory {} in {} ms",
          installation,
          dataDir,
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    }
    return template;
  }

  /** Kills and deletes every server, then deletes the run directories. */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    RuntimeException failure = null;
    for (LocalServer server : List.copyOf(servers)) {
      try {
        server.close();
      } catch (RuntimeException e) {
        failure = addTo(failure, e);
      }
    }
    for (RunDirectory runDirectory : runDirectories.values()) {
      try {
        runDirectory.delete();
      } catch (RuntimeException e) {
        failure = addTo(failure, e);
      }
    }
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException e) {
      // The JVM is shutting down; the hook is running or has run.
    }
    if (failure != null) {
      throw failure;
    }
  }

  private void cleanUpAtExit() {
    ChildProcesses.killAll();
    for (RunDirectory runDirectory : List.copyOf(runDirectories.values())) {
      try {
        runDirectory.delete();
      } catch (RuntimeException e) {
        System.err.println("binlog-relay e2e: cannot delete " + runDirectory.path() + ": " + e);
      }
    }
  }

  private static RuntimeException addTo(RuntimeException first, RuntimeException next) {
    if (first == null) {
      return next;
    }
    first.addSuppressed(next);
    return first;
  }

  private record Template(
      LocalInstallation installation, RunDirectory runDirectory, Path dataDir) {}
}
