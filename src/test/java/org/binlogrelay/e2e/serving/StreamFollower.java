package org.binlogrelay.e2e.serving;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.protocol.bytes.LittleEndian;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.protocol.testing.WireClient;
import org.binlogrelay.server.downstream.Command;
import org.binlogrelay.server.downstream.DumpRequest;
import org.binlogrelay.storage.Position;

/**
 * Test side: one lightweight replica client streaming from a MySQL relay in its own thread: a GTID
 * dump from nothing without TLS ({@code mysql_native_password}), heartbeats every second. It
 * digests the stored events it receives (not the artificial ROTATEs and heartbeats, which carry the
 * relay's server_id) and tracks where the last one ends. {@link #stall()} makes it stop reading its
 * socket, as a replica that hangs; {@link #resume()} reads on. A stream the relay ends (EOF, close)
 * is {@link #endedByServer()}; anything else that goes wrong is {@link #failure()}. Thread-safe.
 */
final class StreamFollower implements Runnable {
  static final int ROTATE = 4;
  static final int HEARTBEAT_V2 = 41;

  private final ServingRelay relay;
  private final long serverId;
  private final int receiveBufferBytes;
  private final MessageDigest digest;
  private volatile Position position;
  private volatile long events;
  private volatile Throwable failure;
  private volatile IOException endedByServer;
  private volatile boolean stalled;
  private volatile boolean stop;

  /**
   * @param receiveBufferBytes the socket's receive buffer, 0 for the system's default
   */
  StreamFollower(ServingRelay relay, long serverId, int receiveBufferBytes) {
    this.relay = relay;
    this.serverId = serverId;
    this.receiveBufferBytes = receiveBufferBytes;
    try {
      this.digest = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A thread running {@code follower}, started. */
  static Thread start(StreamFollower follower) {
    Thread t = new Thread(follower, "follower-" + follower.serverId);
    t.setDaemon(true);
    t.start();
    return t;
  }

  @Override
  public void run() {
    try (DumpClient client =
        DumpClient.connect(relay.address(), ServingRelay.PLAIN, false, receiveBufferBytes)) {
      client.execute(
          "SET @master_binlog_checksum = 'CRC32', @source_binlog_checksum = 'CRC32'",
          "SET @master_heartbeat_period = 1000000000, @source_heartbeat_period = 1000000000");
      client.startDump(
          gtidDump(serverId, DumpRequest.USE_HEARTBEAT_EVENT_V2), Duration.ofSeconds(30));
      String file = null;
      while (!stop) {
        if (stalled) {
          Thread.sleep(20); // the stall under test: a client that reads nothing until resumed
          continue;
        }
        WireClient.Packet p;
        try {
          p = client.next();
        } catch (IOException e) {
          endedByServer = e;
          return;
        }
        if (!p.isEvent()) {
          throw new AssertionError("client " + serverId + " got " + (p.isErr() ? p.err() : "EOF"));
        }
        byte[] event = p.event();
        int flags = LittleEndian.u16(event, 17);
        if (p.eventType() == ROTATE && (flags & 0x20) != 0) {
          file = new String(event, 19 + 8, event.length - 19 - 8 - 4, StandardCharsets.US_ASCII);
        } else if (p.eventType() != HEARTBEAT_V2) {
          digest(event);
          position = new Position(file, LittleEndian.u32(event, 13));
          events++;
        }
      }
    } catch (Throwable t) {
      if (!stop) {
        failure = t;
      }
    }
  }

  long serverId() {
    return serverId;
  }

  /** Where the last stored event received ends; null before the first. */
  Position position() {
    return position;
  }

  long events() {
    return events;
  }

  Throwable failure() {
    return failure;
  }

  /** Why the stream ended on the relay's side (EOF, reset), or null while it runs. */
  IOException endedByServer() {
    return endedByServer;
  }

  void stall() {
    stalled = true;
  }

  void resume() {
    stalled = false;
  }

  void stop() {
    stop = true;
  }

  private synchronized void digest(byte[] event) {
    digest.update(event);
  }

  /** SHA-256 of the stored events received so far. */
  synchronized String digestHex() {
    try {
      return HexFormat.of().formatHex(((MessageDigest) digest.clone()).digest());
    } catch (CloneNotSupportedException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * SHA-256 of the stored events the primary itself sends for the same dump, non-blocking, to its
   * current end: what every follower must have once it reached the primary's position.
   */
  static String referenceDigest(DatabaseServer primary) throws Exception {
    MessageDigest reference = MessageDigest.getInstance("SHA-256");
    try (DumpClient client =
        DumpClient.connect(primary.address(), primary.replicationCredentials(), true)) {
      client.execute("SET @master_binlog_checksum = 'CRC32', @source_binlog_checksum = 'CRC32'");
      for (WireClient.Packet p :
          client.dump(
              gtidDump(0, DumpRequest.BINLOG_DUMP_NON_BLOCK | DumpRequest.USE_HEARTBEAT_EVENT_V2),
              10_000_000,
              Duration.ofSeconds(10))) {
        if (p.isEvent()
            && p.eventType() != HEARTBEAT_V2
            && !(p.eventType() == ROTATE && (LittleEndian.u16(p.event(), 17) & 0x20) != 0)) {
          reference.update(p.event());
        }
      }
    }
    return HexFormat.of().formatHex(reference.digest());
  }

  /** COM_BINLOG_DUMP_GTID from the empty set. */
  static byte[] gtidDump(long serverId, int flags) {
    return new DumpRequest(
            Command.COM_BINLOG_DUMP_GTID, serverId, flags, "", 4, MysqlGtidSet.empty())
        .encode();
  }
}
