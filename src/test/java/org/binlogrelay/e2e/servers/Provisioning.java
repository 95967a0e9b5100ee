package org.binlogrelay.e2e.servers;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Where the tools that {@code scripts/provision-test-servers.sh} installs are, and the message to
 * give when one is missing. End-to-end tests fail on a missing tool, they never skip.
 */
public final class Provisioning {

  private static final List<String> SYSTEM_DIRS =
      List.of("/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin", "/sbin", "/bin");

  private Provisioning() {}

  /** The sentence every "not installed" error ends with. */
  public static String hint() {
    String repo = System.getProperty("binlogrelay.repo");
    String script =
        repo == null
            ? "scripts/provision-test-servers.sh"
            : Path.of(repo)
                .toAbsolutePath()
                .normalize()
                .resolve("scripts/provision-test-servers.sh")
                .toString();
    return "Run "
        + script
        + " (as root) to install the test servers and tools; end-to-end tests never skip a"
        + " missing one.";
  }

  /**
   * The cache where the provisioning script keeps its Debian sid roots ({@code mysql-sid-root},
   * {@code mariadb-sid-root}): {@code $BINLOG_RELAY_CACHE}, by default {@code
   * ~/.cache/binlog-relay}.
   */
  public static Path cacheDir() {
    String cache = System.getenv("BINLOG_RELAY_CACHE");
    Path dir =
        cache != null && !cache.isBlank()
            ? Path.of(cache)
            : Path.of(System.getProperty("user.home"), ".cache", "binlog-relay");
    return dir.toAbsolutePath().normalize();
  }

  /**
   * An executable on the PATH or in the usual system directories, or an error naming {@code what}
   * is missing.
   */
  public static Path executable(String name, String what) {
    Optional<Path> onPath =
        Pattern.compile(":")
            .splitAsStream(System.getenv().getOrDefault("PATH", ""))
            .filter(dir -> !dir.isEmpty())
            .map(dir -> Path.of(dir, name))
            .filter(Files::isExecutable)
            .findFirst();
    if (onPath.isPresent()) {
      return onPath.get();
    }
    return SYSTEM_DIRS.stream()
        .map(dir -> Path.of(dir, name))
        .filter(Files::isExecutable)
        .findFirst()
        .orElseThrow(
            () ->
                new ServerException(
                    what
                        + " is not installed: no executable '"
                        + name
                        + "' on the PATH or in "
                        + String.join(", ", SYSTEM_DIRS)
                        + ". "
                        + hint()));
  }
}
