package org.binlogrelay.bench;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Locale;
import org.binlogrelay.bench.client.PacketFrames;
import org.binlogrelay.bench.client.SourceConnection;
import org.binlogrelay.bench.flavor.SourceFlavor;
import org.binlogrelay.bench.stream.DumpStreamReader;
import org.binlogrelay.bench.stream.FileRebuilder;

/**
 * One replica client: a connection set up as a replica and a dump requested, whose stream is read
 * with {@link #stream()}: by the stream itself ({@link DumpStreamReader#next()}), or, for a client
 * started {@link #startSelectable selectable}, by whoever reads its {@link #channel()} into its
 * {@link #frames()} and hands each packet to the stream. Thread-safety: one reading thread; {@link
 * #close()} from any thread.
 */
final class ReplicaClient implements Closeable {
  private final SourceConnection connection;
  private final DumpStreamReader stream;

  /** Where a selectable client's packets are read to; {@code null} for a blocking one. */
  private final PacketFrames frames;

  private ReplicaClient(SourceConnection connection, DumpStreamReader stream, PacketFrames frames) {
    this.connection = connection;
    this.stream = stream;
    this.frames = frames;
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
    return start(settings, start, nonBlocking, index, rebuilder, false);
  }

  /**
   * As {@link #start}, for a blocking dump (no EOF at the head) whose stream is read from a
   * non-blocking {@link #channel()} by the caller, and no rebuilder.
   */
  static ReplicaClient startSelectable(ClientSettings settings, StartPoint start, int index)
      throws IOException {
    return start(settings, start, false, index, null, true);
  }

  private static ReplicaClient start(
      ClientSettings settings,
      StartPoint start,
      boolean nonBlocking,
      int index,
      FileRebuilder rebuilder,
      boolean selectable)
      throws IOException {
    SourceConnection connection =
        selectable
            ? SourceConnection.openChannel(
                settings.source(),
                settings.connectTimeout(),
                settings.bufferSize(),
                settings.maxPacket())
            : SourceConnection.open(
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
      if (selectable) {
        PacketFrames frames = connection.switchToNonBlocking();
        DumpStreamReader stream =
            new DumpStreamReader(
                null, checksum.equals("CRC32"), settings.verifyChecksums(), null, System::nanoTime);
        return new ReplicaClient(connection, stream, frames);
      }
      connection.readTimeout(readTimeout(settings));
      DumpStreamReader stream =
          new DumpStreamReader(
              connection.packets(),
              checksum.equals("CRC32"),
              settings.verifyChecksums(),
              rebuilder,
              System::nanoTime);
      return new ReplicaClient(connection, stream, null);
    } catch (IOException | RuntimeException e) {
      connection.close();
      throw e;
    }
  }

  /**
   * How long a client waits for a packet before it gives up: 5 heartbeat periods, at least 10 s;
   * forever without heartbeats.
   */
  static Duration readTimeout(ClientSettings settings) {
    long heartbeat = settings.heartbeatMillis();
    return heartbeat > 0 ? Duration.ofMillis(Math.max(10_000, 5 * heartbeat)) : Duration.ZERO;
  }

  DumpStreamReader stream() {
    return stream;
  }

  /** A selectable client's packets, read from {@link #channel()}; {@code null} otherwise. */
  PacketFrames frames() {
    return frames;
  }

  /** A selectable client's channel, non-blocking; {@code null} otherwise. */
  SocketChannel channel() {
    return frames == null ? null : connection.channel();
  }

  SourceConnection connection() {
    return connection;
  }

  /** Bytes received on the socket, packet headers included. */
  long wireBytes() {
    if (frames != null) {
      throw new IllegalStateException("a selectable client's bytes are counted by its frames");
    }
    return connection.packets().bytesRead();
  }

  @Override
  public void close() throws IOException {
    connection.close();
  }
}
