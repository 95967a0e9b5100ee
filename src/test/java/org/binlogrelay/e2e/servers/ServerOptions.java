package org.binlogrelay.e2e.servers;

import java.util.ArrayList;
import java.util.List;

/**
 * The server command-line options every backend passes, so that a local process and a container are
 * configured alike: binlog on with ROW format and CRC32 checksums, GTIDs on, a distinct {@code
 * server_id}, and small memory and redo sizes so that several servers start fast on a small
 * machine.
 *
 * <p>Backend-specific options (data directory, port, socket, log files) are the backend's business
 * and come first; the spec's extra options come last so that they win.
 */
public final class ServerOptions {

  private ServerOptions() {}

  /**
   * @param logBinBase the {@code --log-bin} base name as the server sees it, e.g. {@code
   *     /srv/x/binlog/binlog}
   */
  public static List<String> of(ServerSpec spec, int serverId, String logBinBase) {
    List<String> options = new ArrayList<>();
    options.add("--server-id=" + serverId);
    options.add("--log-bin=" + logBinBase);
    options.add("--binlog-format=ROW");
    options.add("--binlog-checksum=CRC32");
    options.add("--innodb-buffer-pool-size=64M");
    options.add("--performance-schema=OFF");
    options.add("--skip-name-resolve");
    options.addAll(spec.flavor().dialect().serverOptions());
    if (spec.maxBinlogSize() != 0) {
      options.add("--max-binlog-size=" + spec.maxBinlogSize());
    }
    options.addAll(spec.extraOptions());
    return options;
  }
}
