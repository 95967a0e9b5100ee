package org.binlogrelay.server.upstream;

import java.nio.charset.StandardCharsets;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.bytes.ByteWriter;
import org.binlogrelay.storage.Position;

/**
 * The two bytes semi-synchronous replication adds to the dump stream, and the acknowledgement a replica sends
 * back (MySQL {@code plugin/semisync/semisync.h}, {@code semisync_replica.cc}; MariaDB {@code
 * sql/semisync_slave.cc}). Once the replica has set {@code @rpl_semi_sync_replica=1} (MySQL) or {@code
 * @rpl_semi_sync_slave=1} (MariaDB, and MySQL's older plugin), every event packet of the dump carries the
 * header, whether or not the primary waits for acknowledgements at the moment:
 *
 * <pre>
 *   event packet   0x00 | 0xef (magic) | u8 flags (0x01: acknowledge this event) | event ...
 *   ack packet     0xef (magic) | u64 position | file name (no terminating NUL)
 * </pre>
 *
 * The ack is a packet of its own, sent by the client with sequence id 0 on the dump connection (the replica
 * calls {@code net_clear} before writing it; the primary's ack receiver thread reads it with a fresh sequence).
 * Its position is the end of the flagged event in the <em>primary's</em> binlog: the event's log_pos in the file
 * the stream is in.
 *
 * <p>Sequence ids: right after sending a flagged event (flags exactly {@code 0x01}), the primary's dump thread
 * flushes and restarts its numbering as if the replica had answered ({@code net_clear} then {@code pkt_nr++} in
 * {@code ReplSemiSyncMaster::readSlaveReply}, MySQL and MariaDB alike): the next packet of the dump stream has
 * sequence id 1, whether or not an ack was sent ({@link #restartsSequence}). Stateless.
 */
final class SemiSyncPackets {
  /** kPacketMagicNum: first byte of the header and of the ack. */
  static final int MAGIC = 0xef;

  /** kPacketFlagSync: the primary waits for an ack of this event. */
  static final int FLAG_ACK = 0x01;

  /** Where the event starts in a semi-sync event packet: after 0x00, magic and flags. */
  static final int EVENT_OFFSET = 3;

  /** FN_REFLEN: the primary refuses an ack whose file name is this long or longer. */
  static final int MAX_FILE_NAME = 512;

  private SemiSyncPackets() {}

  /**
   * Reads the header of an event packet ({@code packet[0] == 0x00}).
   *
   * @return true if the primary asks for an acknowledgement of the event
   * @throws ProtocolException if the packet is too short or lacks the magic byte: the stream is not
   *     what the semi-sync negotiation promised
   */
  static boolean ackRequested(byte[] packet, String source) {
    if (packet.length < EVENT_OFFSET) {
      throw new ProtocolException(
          "semi-sync event packet of "
              + packet.length
              + " bytes from "
              + source
              + " is shorter than its 0x00, magic and flags bytes");
    }
    int magic = packet[1] & 0xff;
    if (magic != MAGIC) {
      throw new ProtocolException(
          "event packet from "
              + source
              + " lacks the semi-sync magic byte 0xef (found 0x"
              + Integer.toHexString(magic)
              + ") although the relay asked for semi-sync and the primary accepted");
    }
    return (packet[2] & FLAG_ACK) != 0;
  }

  /**
   * True if {@code packet} is an event packet the primary flagged for an ack, after which its dump
   * thread numbers the next packet 1.
   */
  static boolean restartsSequence(byte[] packet) {
    return packet.length >= EVENT_OFFSET
        && packet[0] == 0
        && (packet[1] & 0xff) == MAGIC
        && packet[2] == FLAG_ACK;
  }

  /** The ack payload for {@code position} of the primary's binlog. */
  static byte[] ack(Position position) {
    byte[] name = position.file().getBytes(StandardCharsets.UTF_8);
    if (name.length >= MAX_FILE_NAME) {
      throw new IllegalArgumentException(
          "binlog file name of "
              + name.length
              + " bytes is too long for a"
              + " semi-sync ack (under "
              + MAX_FILE_NAME
              + ")");
    }
    return new ByteWriter(9 + name.length)
        .u8(MAGIC)
        .u64(position.offset())
        .bytes(name)
        .toByteArray();
  }
}
