package org.binlogrelay.server.upstream;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.binlogrelay.protocol.bytes.ByteWriter;
import org.binlogrelay.protocol.event.BinlogChecksum;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.BinlogEventDecoder;
import org.binlogrelay.protocol.event.ChecksumAlgorithm;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.event.RotateEvent;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;

/**
 * Test side: the dump stream of a synthetic MySQL 9.7 server with CRC32 checksums, as its dump
 * thread sends it: events with log_pos at their end in the server's current file. Each method
 * appends events and returns them (decoded, checked). Not thread-safe.
 */
final class SourceStream {
  /**
   * MySQL 9.7's post-header lengths, by type code - 1 (QUERY 13, ROTATE 8, FDE 98, XID 0, GTID 42,
   * ...).
   */
  private static final byte[] POST_HEADERS = {
    0, 13, 0, 8, 0, 18, 9, 4, 4, 4, 4, 18, 0, 0, 98, 0, 4, 26, 8, 0, 0, 0, 10, 10, 10, 2, 0, 0, 0,
    10, 10, 10, 42, 42, 0, 18, 52, 0, 0, 10, 40, 42
  };

  private final long serverId;
  private final List<BinlogEvent> events = new ArrayList<>();
  private final BinlogEventDecoder decoder =
      new BinlogEventDecoder(ChecksumAlgorithm.CRC32, 1 << 20);
  private String file;
  private long offset;
  private long timestamp = 1_795_000_000L;

  SourceStream(long serverId) {
    this.serverId = serverId;
  }

  /** The events so far (decoded as the relay's decoder would). */
  List<BinlogEvent> events() {
    return events;
  }

  /** Where the next event goes in the server's current file. */
  long offset() {
    return offset;
  }

  /** The dump's start: an artificial ROTATE naming {@code name} at {@code position}. */
  SourceStream dumpStart(String name, long position) {
    file = name;
    offset = position;
    byte[] body = new RotateEvent(position, name).encodeBody();
    add(EventType.ROTATE, EventHeader.LOG_EVENT_ARTIFICIAL_F, 0, body);
    return this;
  }

  /** The file's FORMAT_DESCRIPTION (at offset 4; log_pos 0 if the dump starts mid-file). */
  SourceStream formatDescription() {
    byte[] version = new byte[50];
    byte[] v = "9.7.4".getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(v, 0, version, 0, v.length);
    byte[] body =
        new ByteWriter()
            .u16(4)
            .bytes(version)
            .u32(0)
            .u8(EventHeader.SIZE)
            .bytes(POST_HEADERS)
            .u8(ChecksumAlgorithm.CRC32.code())
            .toByteArray();
    boolean atStart = offset == 4;
    add(EventType.FORMAT_DESCRIPTION, 0, atStart ? -1 : 0, body);
    return this;
  }

  SourceStream previousGtids(String set) {
    add(EventType.PREVIOUS_GTIDS, 0, -1, MysqlGtidSet.parse(set).encode());
    return this;
  }

  /** A transaction: GTID, QUERY BEGIN, XID. */
  SourceStream transaction(UUID uuid, long gno) {
    byte[] gtid =
        new ByteWriter()
            .u8(1)
            .u64be(uuid.getMostSignificantBits())
            .u64be(uuid.getLeastSignificantBits())
            .u64(gno)
            .u8(2)
            .u64(gno - 1)
            .u64(gno)
            .toByteArray();
    add(EventType.GTID, 0, -1, gtid);
    byte[] begin =
        new ByteWriter()
            .u32(7)
            .u32(0)
            .u8(0)
            .u16(0)
            .u16(0)
            .u8(0)
            .bytes("BEGIN".getBytes(StandardCharsets.US_ASCII))
            .toByteArray();
    add(EventType.QUERY, EventHeader.LOG_EVENT_SUPPRESS_USE_F, -1, begin);
    add(EventType.XID, 0, -1, new ByteWriter().u64(gno).toByteArray());
    return this;
  }

  /**
   * The real ROTATE at the end of the file, then the next file starts (the dump sends its FDE
   * next).
   */
  SourceStream rotate(String next) {
    add(EventType.ROTATE, 0, -1, new RotateEvent(4, next).encodeBody());
    file = next;
    offset = 4;
    return this;
  }

  /** STOP: the server shut down; its next file starts after a restart. */
  SourceStream stop(String next) {
    add(EventType.STOP, 0, -1, new byte[0]);
    file = next;
    offset = 4;
    return this;
  }

  /** A heartbeat naming the current file and position. */
  SourceStream heartbeat() {
    add(
        EventType.HEARTBEAT,
        EventHeader.LOG_EVENT_ARTIFICIAL_F,
        offset,
        file.getBytes(StandardCharsets.UTF_8));
    return this;
  }

  /**
   * @param logPos -1: the event's end in the file (and the file grows); otherwise that log_pos, not
   *     written
   */
  private void add(EventType type, int flags, long logPos, byte[] body) {
    int size = EventHeader.SIZE + body.length + BinlogChecksum.SIZE;
    long pos = logPos == -1 ? offset + size : logPos;
    EventHeader h =
        new EventHeader(
            type == EventType.ROTATE && logPos == 0 ? 0 : timestamp++,
            type.code(),
            serverId,
            size,
            pos,
            flags);
    BinlogEvent built = BinlogEvent.assemble(h, body, true);
    byte[] bytes = built.toByteArray();
    events.add(decoder.decode(bytes, 0, bytes.length));
    if (logPos == -1) {
      offset += size;
    }
  }
}
