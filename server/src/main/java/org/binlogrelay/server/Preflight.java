package org.binlogrelay.server;

import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.binlogrelay.server.upstream.UpstreamConfig;

/**
 * Checks a configuration against this host before anything starts, so that a relay that cannot run
 * says so at once, in one line naming the option (and where it was set): the data directory can be
 * created (owner only, as the store creates it) and written, the replica port is free, and, when
 * the store is empty, the primary answers with a MySQL greeting of the expected flavour. An empty
 * store has nothing to serve, so an unreachable primary fails the start (a supervisor such as
 * systemd or Docker restarts the relay); a store that holds files starts without its primary and
 * serves them while the upstream connection retries. Stateless; the checks race with other
 * processes (a port taken after the check still fails the start, in {@link Relay}).
 */
final class Preflight implements RelayMain.Check {
  static final Preflight ON_THIS_HOST = new Preflight();
  private static final Set<PosixFilePermission> OWNER_ONLY =
      PosixFilePermissions.fromString("rwx------");

  private Preflight() {}

  @Override
  public void check(RelayConfig config, Function<String, String> describe)
      throws RelayStartException {
    dataDirectory(config.dataDir(), describe.apply("data-dir"));
    port(config.downstream().bind(), "port", "bind-address", describe);
    if (config.admin() != null) {
      port(config.admin().bind(), "admin-port", "admin-bind-address", describe);
    }
    if (config.upstream() != null) {
      primary(config, describe);
    }
  }

  private static void dataDirectory(Path dir, String option) throws RelayStartException {
    String what = option + " " + dir.toAbsolutePath();
    try {
      create(dir.toAbsolutePath());
    } catch (FileAlreadyExistsException e) {
      throw new RelayStartException(what + ": not a directory (" + e.getFile() + " is a file)");
    } catch (IOException e) {
      throw new RelayStartException(
          what
              + ": cannot create it: "
              + reason(e)
              + "; create it for the relay's user"
              + " ("
              + System.getProperty("user.name")
              + ") or choose another directory");
    }
    if (!Files.isDirectory(dir)) {
      throw new RelayStartException(what + ": not a directory");
    }
    try {
      Files.delete(Files.createTempFile(dir, ".binlog-relay-write-check-", ""));
    } catch (IOException e) {
      throw new RelayStartException(
          what
              + ": not writable: "
              + reason(e)
              + "; give the relay's user ("
              + System.getProperty("user.name")
              + ") write access or choose another directory");
    }
  }

  /**
   * Creates a missing data directory as the store does: parents as usual, the directory itself
   * readable by its owner only where the file system has POSIX permissions (binlogs hold table
   * data).
   */
  private static void create(Path dir) throws IOException {
    if (Files.isDirectory(dir)) {
      return;
    }
    if (dir.getParent() != null) {
      Files.createDirectories(dir.getParent());
    }
    try {
      if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
        Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
      } else {
        Files.createDirectory(dir);
      }
    } catch (FileAlreadyExistsException e) {
      if (!Files.isDirectory(dir)) {
        throw e;
      }
    }
  }

  private static void port(
      InetSocketAddress bind,
      String portOption,
      String addressOption,
      Function<String, String> describe)
      throws RelayStartException {
    if (bind.getPort() == 0) {
      return;
    }
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(true);
      socket.bind(bind);
    } catch (BindException e) {
      String message = String.valueOf(e.getMessage());
      if (message.contains("in use")) {
        throw new RelayStartException(
            describe.apply(portOption)
                + " "
                + bind.getPort()
                + ": "
                + hostPort(bind)
                + " is already in use; choose another --"
                + portOption
                + " or stop the process that listens there");
      }
      throw new RelayStartException(
          describe.apply(addressOption)
              + " "
              + bind.getAddress().getHostAddress()
              + ": cannot listen on "
              + hostPort(bind)
              + " ("
              + message
              + "); use an address of this host");
    } catch (IOException e) {
      throw new RelayStartException(
          describe.apply(portOption)
              + " "
              + bind.getPort()
              + ": cannot listen on "
              + hostPort(bind)
              + " ("
              + e.getMessage()
              + ")");
    }
  }

  private static void primary(RelayConfig config, Function<String, String> describe)
      throws RelayStartException {
    Optional<String> stored;
    try {
      stored = StoredServerVersion.of(config.dataDir());
    } catch (IOException e) {
      return; // the relay's start reports an unreadable store with more detail
    }
    if (stored.isPresent()) {
      return;
    }
    UpstreamConfig upstream = config.upstream();
    HostPort primary = new HostPort(upstream.host(), upstream.port());
    String version;
    try {
      version = PrimaryGreeting.serverVersion(primary, upstream.connectTimeout());
    } catch (IOException e) {
      throw new RelayStartException(
          describe.apply("primary")
              + " "
              + primary
              + ": unreachable: "
              + e.getMessage()
              + ". The store in "
              + config.dataDir().toAbsolutePath()
              + " is empty, so the relay needs its primary to"
              + " start: check the host and port, that the server runs, and that this host may connect");
    }
    if (config.flavor() != null && FlavorDetection.flavorOf(version) != config.flavor()) {
      throw new RelayStartException(
          describe.apply("flavor")
              + " "
              + config.flavor().name().toLowerCase(Locale.ROOT)
              + ", but primary "
              + primary
              + " is '"
              + version
              + "'; fix --flavor or leave it"
              + " out to follow the primary's");
    }
  }

  private static String hostPort(InetSocketAddress bind) {
    return new HostPort(bind.getAddress().getHostAddress(), bind.getPort()).toString();
  }

  private static String reason(IOException e) {
    return ConfigFile.reason(e);
  }
}
