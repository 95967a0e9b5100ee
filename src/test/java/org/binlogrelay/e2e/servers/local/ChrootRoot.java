package org.binlogrelay.e2e.servers.local;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.binlogrelay.e2e.servers.Provisioning;
import org.binlogrelay.e2e.servers.ServerException;

/**
 * A Debian sid root that {@code scripts/provision-test-servers.sh} made with debootstrap in its
 * cache ({@link Provisioning#cacheDir()}): {@code mysql-sid-root} (MySQL 9.7) or {@code
 * mariadb-sid-root} (MariaDB 11.8). Its programs run as {@code chroot ROOT program ...}, which
 * needs root, and see only what lies inside the root: everything a server touches (data, binlogs,
 * logs, socket) must be under it, so run directories go to {@code ROOT/data/binlog-relay-e2e}. The
 * loopback interface is shared, so clients connect to 127.0.0.1 as usual. Immutable.
 */
final class ChrootRoot implements ProgramRoot {

  /** The file the provisioning script creates last, once the root is complete. */
  static final String MARKER = ".binlog-relay-provisioned";

  private final Path root;
  private final Path chroot;

  private ChrootRoot(Path root, Path chroot) {
    this.root = root;
    this.chroot = chroot;
  }

  /**
   * The root {@code name} in the provisioning cache, which must hold the marker and {@code program}
   * (a path inside the root such as {@code usr/sbin/mariadbd}); otherwise an error saying that
   * {@code what} is not installed and how to install it.
   */
  static ChrootRoot find(String name, String program, String what) {
    return find(Provisioning.cacheDir(), name, program, what);
  }

  /** Like {@link #find(String, String, String)} in another cache directory. */
  static ChrootRoot find(Path cache, String name, String program, String what) {
    Path root = cache.resolve(name).toAbsolutePath().normalize();
    if (!Files.exists(root.resolve(MARKER)) || !Files.isExecutable(root.resolve(program))) {
      throw new ServerException(
          what
              + " is not installed: "
              + root.resolve(MARKER)
              + " or "
              + root.resolve(program)
              + " is missing. "
              + Provisioning.hint());
    }
    return new ChrootRoot(root, Provisioning.executable("chroot", "chroot (coreutils)"));
  }

  Path path() {
    return root;
  }

  @Override
  public List<String> command(String program, List<String> arguments) {
    List<String> command = new ArrayList<>(List.of(chroot.toString(), root.toString(), program));
    command.addAll(arguments);
    return command;
  }

  @Override
  public String serverPath(Path hostPath) {
    Path absolute = hostPath.toAbsolutePath().normalize();
    if (!absolute.startsWith(root)) {
      throw new IllegalArgumentException(
          "Path " + hostPath + " is outside the root " + root + " and invisible to the server");
    }
    return "/" + root.relativize(absolute);
  }

  @Override
  public Path runBase() {
    return root.resolve("data").resolve("binlog-relay-e2e");
  }

  @Override
  public String repairHint() {
    return "chroot needs root: run the tests as root. If the root is damaged, delete it and "
        + Provisioning.hint();
  }

  @Override
  public String toString() {
    return root.toString();
  }
}
