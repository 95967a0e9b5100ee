package org.binlogrelay.e2e.servers.local;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.binlogrelay.e2e.servers.Provisioning;

/**
 * Where the programs of a {@link LocalInstallation} run and how they see this machine's files: on
 * the host itself ({@link #host(String)}, Debian's MariaDB 10.11) or inside a Debian sid root
 * through {@code chroot} ({@link ChrootRoot}: MySQL 9.7, MariaDB 11.8). Implementations are
 * immutable.
 */
interface ProgramRoot {

  /**
   * The command line that runs {@code program} (a name on the root's PATH) with {@code arguments}.
   */
  List<String> command(String program, List<String> arguments);

  /** How a program run here sees {@code hostPath}. */
  String serverPath(Path hostPath);

  /** The host directory under which the JVM's run directories for installations here live. */
  Path runBase();

  /** What to do when a program of this root does not run: the end of the error message. */
  String repairHint();

  /**
   * This machine's own programs, found on the PATH or in the system directories; {@code what} names
   * them in errors.
   */
  static ProgramRoot host(String what) {
    return new ProgramRoot() {
      @Override
      public List<String> command(String program, List<String> arguments) {
        List<String> command = new ArrayList<>();
        command.add(Provisioning.executable(program, what).toString());
        command.addAll(arguments);
        return command;
      }

      @Override
      public String serverPath(Path hostPath) {
        return hostPath.toAbsolutePath().toString();
      }

      @Override
      public Path runBase() {
        return Path.of(System.getProperty("java.io.tmpdir"), "binlog-relay-e2e").toAbsolutePath();
      }

      @Override
      public String repairHint() {
        return Provisioning.hint();
      }

      @Override
      public String toString() {
        return "this machine";
      }
    };
  }
}
