package org.binlogrelay.bench;

import java.time.Duration;
import picocli.CommandLine.Option;

/** Options of the replica clients themselves. */
final class ClientOptions {
  @Option(
      names = "--server-id",
      defaultValue = "1000000",
      description =
          "server_id of the first client; client i uses this plus i (default: ${DEFAULT-VALUE}).")
  long serverId;

  @Option(
      names = "--buffer",
      description =
          "Read buffer per client in bytes (default: 1 MiB for catchup, 64 KiB" + " for fanout).")
  Integer buffer;

  @Option(
      names = "--max-packet",
      defaultValue = "1073742848",
      description =
          "Largest packet accepted in bytes (default: ${DEFAULT-VALUE}: a 1 GiB event, MySQL's largest, and its marker).")
  int maxPacket;

  @Option(
      names = "--heartbeat",
      defaultValue = "1000",
      description =
          "Heartbeat period asked of the source, ms; 0 for none (default: ${DEFAULT-VALUE}).")
  long heartbeatMillis;

  @Option(names = "--no-crc", description = "Do not check each event's CRC32.")
  boolean noCrc;

  @Option(
      names = "--connect-timeout",
      defaultValue = "10",
      description = "Seconds (default: ${DEFAULT-VALUE}).")
  long connectTimeoutSeconds;

  ClientSettings settings(SourceOptions source, int defaultBuffer) {
    return new ClientSettings(
        source.address(),
        Duration.ofSeconds(connectTimeoutSeconds),
        buffer == null ? defaultBuffer : buffer,
        maxPacket,
        serverId,
        heartbeatMillis,
        !noCrc);
  }
}
