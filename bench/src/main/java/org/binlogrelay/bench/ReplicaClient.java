package org.binlogrelay.bench;

import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.util.Locale;
import org.binlogrelay.bench.client.SourceConnection;
import org.binlogrelay.bench.flavor.SourceFlavor;
import org.binlogrelay.bench.stream.DumpStreamReader;
import org.binlogrelay.bench.stream.FileRebuilder;

/**
 * One replica client: a connection set up as a replica and a dump requested, whose stream is read
 * with {@link #stream()}. Thread-safety: one reading thread; {@link #close()} from any thread.
 */
final class ReplicaClient implements Closeable {
  private final SourceConnection connection;
  private final DumpStreamReader stream;

  private ReplicaClient(SourceConnection connection, DumpStreamReader stream) {
    this.connection = connection;
    this.stream = stream;
  }

  /**
   * Connects, prepares the session and sends the dump command.
   *
   * @param index the client's number in the run (its server_id is the base plus this)
   * @param rebuilder gets every event, or {@code null}
   */
  static ReplicaClient start(
      ClientSettings settings,
      StartPoint start,
      boolean nonBlocking,
      int index,
      FileRebuilder rebuilder)
      throws IOException {
    SourceConnection connection =
        SourceConnection.open(
            settings.source(),
            settings.connectTimeout(),
            settings.bufferSize(),
            settings.maxPacket());
    try {
      SourceFlavor flavor = SourceFlavor.of(connection.serverVersion());
      String checksum = connection.queryValue("SELECT @@GLOBAL.binlog_checksum");
      checksum = checksum == null ? "NONE" : checksum.toUpperCase(Locale.ROOT);
      long serverId = settings.serverId() + index;
      flavor.prepareDump(connection, checksum, settings.heartbeatMillis(), serverId);
      if (start.position() != null) {
        flavor.dumpFrom(connection, start.position(), serverId, nonBlocking);
      } else {
        flavor.dumpAfterGtids(connection, start.gtids(), serverId, nonBlocking);
      }
      long heartbeat = settings.heartbeatMillis();
      connection.readTimeout(
          heartbeat > 0 ? Duration.ofMillis(Math.max(10_000, 5 * heartbeat)) : Duration.ZERO);
      DumpStreamReader stream =
          new DumpStreamReader(
              connection.packets(),
              checksum.equals("CRC32"),
              settings.verifyChecksums(),
              rebuilder,
              System::nanoTime);
      return new ReplicaClient(connection, stream);
    } catch (IOException | RuntimeException e) {
      connection.close();
      throw e;
    }
  }

  DumpStreamReader stream() {
    return stream;
  }

  SourceConnection connection() {
    return connection;
  }

  /** Bytes received on the socket, packet headers included. */
  long wireBytes() {
    return connection.packets().bytesRead();
  }

  @Override
  public void close() throws IOException {
    connection.close();
  }
}
