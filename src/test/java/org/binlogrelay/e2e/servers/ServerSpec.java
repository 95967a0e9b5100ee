package org.binlogrelay.e2e.servers;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * What a test wants of one server. Immutable; the {@code with...} methods return a modified copy.
 *
 * <p>Every server gets binlogs on, {@code binlog_format=ROW}, {@code binlog_checksum=CRC32} and
 * GTIDs on (see {@link ServerOptions}); {@link #extraOptions()} come last on the command line, so
 * they override those defaults, for example {@code --binlog-checksum=NONE}.
 *
 * @param name a short name for logs and directories, such as {@code primary}
 * @param serverId the {@code server_id}; 0 lets the backend pick one unique in the JVM (below 1000)
 * @param maxBinlogSize {@code max_binlog_size} in bytes; 0 keeps the server's default (1 GiB)
 * @param binlogBaseName the {@code --log-bin} base name, {@code binlog} by default: files {@code
 *     binlog.000001} ... and the index {@code binlog.index} in {@link DatabaseServer#binlogDir()}
 * @param extraOptions further {@code --option=value} arguments for the server
 */
public record ServerSpec(
    String name,
    ServerVersion version,
    int serverId,
    long maxBinlogSize,
    String binlogBaseName,
    List<String> extraOptions) {

  /** The {@code --log-bin} base name servers get unless a test picks another. */
  public static final String DEFAULT_BINLOG_BASE_NAME = "binlog";

  public ServerSpec {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(version, "version");
    if (!name.matches("[A-Za-z0-9_-]{1,32}")) {
      throw new IllegalArgumentException(
          "Server name '" + name + "' must be 1-32 of [A-Za-z0-9_-]");
    }
    if (serverId < 0) {
      throw new IllegalArgumentException("Invalid server_id " + serverId + " for server " + name);
    }
    if (maxBinlogSize != 0 && (maxBinlogSize < 4096 || maxBinlogSize > 1L << 30)) {
      throw new IllegalArgumentException(
          "Invalid max_binlog_size "
              + maxBinlogSize
              + " for server "
              + name
              + ": must be 4096..1073741824");
    }
    Objects.requireNonNull(binlogBaseName, "binlogBaseName");
    if (!binlogBaseName.matches("[A-Za-z0-9_-]{1,64}")) {
      throw new IllegalArgumentException(
          "Binlog base name '"
              + binlogBaseName
              + "' for server "
              + name
              + " must be 1-64 of [A-Za-z0-9_-] (no directory: the files stay in the server's binlog directory)");
    }
    extraOptions = List.copyOf(extraOptions);
    for (String option : extraOptions) {
      if (!option.startsWith("--")) {
        throw new IllegalArgumentException(
            "Server option '" + option + "' for server " + name + " must start with --");
      }
    }
  }

  public static ServerSpec of(ServerVersion version) {
    return new ServerSpec(
        version.flavor().name().toLowerCase(Locale.ROOT),
        version,
        0,
        0,
        DEFAULT_BINLOG_BASE_NAME,
        List.of());
  }

  public static ServerSpec of(ServerFlavor flavor) {
    return of(ServerVersion.defaultFor(flavor));
  }

  /**
   * Throws {@link IllegalArgumentException} unless {@code changed} is this server's spec with only
   * options changed (max_binlog_size, binlog base name, extra options): what {@link
   * DatabaseServer#restart(ServerSpec)} accepts.
   */
  public ServerSpec requireSameServer(ServerSpec changed) {
    if (!name.equals(changed.name)
        || !version.equals(changed.version)
        || serverId != changed.serverId) {
      throw new IllegalArgumentException(
          "A restart may change only a server's options, not its name, version"
              + " or server_id: "
              + this
              + " -> "
              + changed);
    }
    return changed;
  }

  public ServerFlavor flavor() {
    return version.flavor();
  }

  public ServerSpec named(String newName) {
    return new ServerSpec(newName, version, serverId, maxBinlogSize, binlogBaseName, extraOptions);
  }

  public ServerSpec withServerId(int newServerId) {
    return new ServerSpec(name, version, newServerId, maxBinlogSize, binlogBaseName, extraOptions);
  }

  public ServerSpec withMaxBinlogSize(long bytes) {
    return new ServerSpec(name, version, serverId, bytes, binlogBaseName, extraOptions);
  }

  /**
   * Another {@code --log-bin} base name, e.g. {@code newbase}: the server writes {@code
   * newbase.000001} ... and {@code newbase.index} in the same binlog directory. Given to {@link
   * DatabaseServer#restart(ServerSpec)}, it acts like a DBA restarting MySQL with another {@code
   * --log-bin}: a new index, numbering from 1.
   */
  public ServerSpec withBinlogBaseName(String base) {
    return new ServerSpec(name, version, serverId, maxBinlogSize, base, extraOptions);
  }

  /** Adds server options such as {@code --binlog-row-image=MINIMAL}. */
  public ServerSpec withOptions(String... options) {
    List<String> all = new ArrayList<>(extraOptions);
    all.addAll(List.of(options));
    return new ServerSpec(name, version, serverId, maxBinlogSize, binlogBaseName, all);
  }
}
