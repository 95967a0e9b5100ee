package org.binlogrelay.bench.stream;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.LongSupplier;
import java.util.zip.CRC32;
import org.binlogrelay.bench.client.SourceException;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.bytes.LittleEndian;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.packet.BlockingPacketReader;
import org.binlogrelay.protocol.packet.ErrPacket;

/**
 * Walks a dump stream packet by packet, reading event headers only (no event body is decoded,
 * except ROTATE's file name and FORMAT_DESCRIPTION's checksum byte):
 *
 * <pre>
 *   0x00 event    19-byte header: u32 timestamp | u8 type | u32 server_id | u32 event_size | u32 log_pos | u16 flags
 *   0xFE (short)  EOF: a non-blocking dump reached the end
 *   0xFF          ERR: the source ended the dump
 * </pre>
 *
 * It counts events, their bytes and transactions (GTID events: MySQL GTID, ANONYMOUS_GTID,
 * GTID_TAGGED and MariaDB GTID), follows the position (the artificial ROTATE names the file, every
 * event's log_pos is its end), optionally checks each event's CRC32 (on when the last
 * FORMAT_DESCRIPTION says so, or when the session negotiated it before the first one), and hands
 * each event to a {@link FileRebuilder} if one is given.
 *
 * <p>Packets come either from a {@link BlockingPacketReader} ({@link #next()}) or from the caller
 * ({@link #accept}, for clients read without blocking).
 *
 * <p>Not thread-safe: the connection's reading thread. {@link #progress()} is published for other
 * threads.
 */
public final class DumpStreamReader {
  /** What one packet was. */
  public enum Kind {
    EVENT,
    HEARTBEAT,
    EOF
  }

  private static final boolean[] TRANSACTION_START = new boolean[256];

  static {
    TRANSACTION_START[EventType.GTID.code()] = true;
    TRANSACTION_START[EventType.ANONYMOUS_GTID.code()] = true;
    TRANSACTION_START[EventType.GTID_TAGGED.code()] = true;
    TRANSACTION_START[EventType.MARIADB_GTID.code()] = true;
  }

  private static final int HEARTBEAT = EventType.HEARTBEAT.code();
  private static final int HEARTBEAT_V2 = EventType.HEARTBEAT_V2.code();
  private static final int ROTATE = EventType.ROTATE.code();
  private static final int FORMAT_DESCRIPTION = EventType.FORMAT_DESCRIPTION.code();
  private static final int STOP = EventType.STOP.code();

  private final BlockingPacketReader packets;
  private final boolean verifyChecksums;
  private final FileRebuilder rebuilder;
  private final LongSupplier nanos;
  private final DumpProgress progress = new DumpProgress();
  private final CRC32 crc = new CRC32();
  private boolean checksums;
  private String file;
  private String nextFile;
  private long offset;
  private long events;
  private long eventBytes;
  private long transactions;
  private long heartbeats;
  private long checked;
  private int lastType = -1;
  private long lastLogPos;
  private long lastTimestamp;

  /** {@link BlockingPacketReader#reads()} when {@link #arrivalNanos} was taken. */
  private long arrivalRead = -1;

  private long arrivalNanos;

  /**
   * @param packets the connection's packets, right after the dump command was sent; {@code null}
   *     when the caller hands each packet to {@link #accept}
   * @param negotiatedChecksums whether the session asked for CRC32
   *     ({@code @source_binlog_checksum}): the events before the first FORMAT_DESCRIPTION carry one
   *     then
   * @param verifyChecksums whether to compute and compare every event's CRC32
   * @param rebuilder where to send each event to rebuild the source's files, or {@code null}
   * @param nanos the clock ({@link System#nanoTime()} outside tests)
   */
  public DumpStreamReader(
      BlockingPacketReader packets,
      boolean negotiatedChecksums,
      boolean verifyChecksums,
      FileRebuilder rebuilder,
      LongSupplier nanos) {
    this.packets = packets;
    this.checksums = negotiatedChecksums;
    this.verifyChecksums = verifyChecksums;
    this.rebuilder = rebuilder;
    this.nanos = nanos;
  }

  /** Reads and accounts for one packet. */
  public Kind next() throws IOException {
    int length = packets.next();
    return packet(packets.array(), packets.offset(), length);
  }

  /**
   * Accounts for one packet read by the caller (the reader was made without packets): its payload
   * is {@code b[at .. at + length)}, it arrived at {@code arrivalNanos} (the clock of the
   * constructor).
   */
  public Kind accept(byte[] b, int at, int length, long arrivalNanos) throws IOException {
    if (packets != null) {
      throw new IllegalStateException("this stream reads its own packets");
    }
    this.arrivalNanos = arrivalNanos;
    return packet(b, at, length);
  }

  private Kind packet(byte[] b, int at, int length) throws IOException {
    int marker = length == 0 ? -1 : b[at] & 0xff;
    if (marker == 0) {
      return event(b, at + 1, length - 1);
    }
    if (marker == 0xfe && length < 9) {
      return Kind.EOF;
    }
    if (marker == ErrPacket.HEADER) {
      throw new SourceException(
          "the source ended the dump " + where(),
          ErrPacket.decode(Arrays.copyOfRange(b, at, at + length)));
    }
    throw new ProtocolException(
        "dump packet "
            + (events + heartbeats + 1)
            + " starts with 0x"
            + Integer.toHexString(marker)
            + ", expected 0x00 (event), 0xfe (EOF) or 0xff (error), "
            + where());
  }

  private Kind event(byte[] b, int at, int length) throws IOException {
    if (length < EventHeader.SIZE) {
      throw new ProtocolException(
          "event of " + length + " bytes is shorter than its 19-byte header, " + where());
    }
    long size = LittleEndian.u32(b, at + EventHeader.EVENT_SIZE_OFFSET);
    if (size != length) {
      throw new ProtocolException(
          "event header says " + size + " bytes but the packet holds " + length + ", " + where());
    }
    int type = b[at + EventHeader.TYPE_OFFSET] & 0xff;
    long logPos = LittleEndian.u32(b, at + EventHeader.LOG_POS_OFFSET);
    int flags = LittleEndian.u16(b, at + EventHeader.FLAGS_OFFSET);
    if (type == FORMAT_DESCRIPTION) {
      checksums = formatHasChecksum(b, at, length);
    }
    if (checksums && verifyChecksums) {
      checkCrc(b, at, length, type);
    }
    if (rebuilder != null) {
      rebuilder.accept(b, at, length, type, logPos, flags, checksums ? 4 : 0);
    }
    lastType = type;
    lastLogPos = logPos;
    if (type == HEARTBEAT || type == HEARTBEAT_V2) {
      heartbeats++;
      return Kind.HEARTBEAT;
    }
    events++;
    eventBytes += length;
    if (TRANSACTION_START[type]) {
      transactions++;
    }
    lastTimestamp = LittleEndian.u32(b, at);
    if (type == ROTATE) {
      rotate(b, at, length, flags, logPos);
    } else if (type == STOP) {
      nextFile = nextName(file);
    } else if (logPos != 0) {
      if (type == FORMAT_DESCRIPTION && nextFile != null) {
        file = nextFile;
        nextFile = null;
      }
      offset = logPos;
    }
    progress.publish(
        eventBytes,
        events,
        transactions,
        file == null ? -1 : BinlogPosition.pack(file, offset),
        arrivalNanos());
    return Kind.EVENT;
  }

  /**
   * When the last packet arrived: the clock read once per read of the socket (the packets of one
   * read arrived together), not once per event, which cost the client as much as the rest of its
   * per-event work.
   */
  public long arrivalNanos() {
    if (packets == null) {
      return arrivalNanos;
    }
    long read = packets.reads();
    if (read != arrivalRead) {
      arrivalRead = read;
      arrivalNanos = nanos.getAsLong();
    }
    return arrivalNanos;
  }

  private void rotate(byte[] b, int at, int length, int flags, long logPos) {
    int nameEnd = at + length - (checksums ? 4 : 0);
    int nameStart = at + EventHeader.SIZE + 8;
    if (nameEnd < nameStart) {
      throw new ProtocolException("ROTATE event of " + length + " bytes is too short, " + where());
    }
    String name = new String(b, nameStart, nameEnd - nameStart, StandardCharsets.UTF_8);
    long position = LittleEndian.u64(b, at + EventHeader.SIZE);
    if ((flags & EventHeader.LOG_EVENT_ARTIFICIAL_F) != 0 || logPos == 0) {
      file = name;
      offset = position;
      nextFile = null;
    } else {
      offset = logPos;
      nextFile = name;
    }
  }

  /**
   * A FORMAT_DESCRIPTION ends with its checksum algorithm byte, followed by a CRC32 when the byte
   * is 1 (CRC32). Its body is at least 57 bytes before the post-header lengths, so a shorter one
   * has no algorithm byte.
   */
  private boolean formatHasChecksum(byte[] b, int at, int length) {
    if (length < EventHeader.SIZE + 57 + 5 || b[at + length - 5] != 1) {
      return false;
    }
    crc.reset();
    crc.update(b, at, length - 4);
    return crc.getValue() == LittleEndian.u32(b, at + length - 4);
  }

  private void checkCrc(byte[] b, int at, int length, int type) {
    crc.reset();
    crc.update(b, at, length - 4);
    long expected = LittleEndian.u32(b, at + length - 4);
    if (crc.getValue() != expected) {
      throw new ProtocolException(
          "CRC32 mismatch in a "
              + EventType.forCode(type)
              + " event: computed 0x"
              + Long.toHexString(crc.getValue())
              + ", the event says 0x"
              + Long.toHexString(expected)
              + ", "
              + where());
    }
    checked++;
  }

  /** {@code binlog.000007} after {@code binlog.000006}, keeping the width. */
  static String nextName(String file) {
    if (file == null) {
      return null;
    }
    int dot = file.lastIndexOf('.');
    String digits = file.substring(dot + 1);
    String next = Long.toString(BinlogPosition.sequence(file) + 1);
    return file.substring(0, dot + 1)
        + "0".repeat(Math.max(0, digits.length() - next.length()))
        + next;
  }

  private String where() {
    return "after "
        + events
        + " events, at "
        + (file == null ? "an unknown position" : file + ":" + offset)
        + (lastType < 0
            ? ""
            : " (last event: " + EventType.forCode(lastType) + ", log_pos " + lastLogPos + ")");
  }

  public DumpProgress progress() {
    return progress;
  }

  /** The file of the last event; {@code null} before the first ROTATE. */
  public String file() {
    return file;
  }

  /** The end of the last event in {@link #file()}. */
  public long offset() {
    return offset;
  }

  /** Where the stream stands, or {@code null} before the first ROTATE. */
  public BinlogPosition position() {
    return file == null ? null : new BinlogPosition(file, offset);
  }

  public long events() {
    return events;
  }

  public long eventBytes() {
    return eventBytes;
  }

  public long transactions() {
    return transactions;
  }

  public long heartbeats() {
    return heartbeats;
  }

  /** Events whose CRC32 was computed and matched. */
  public long checksumsVerified() {
    return checked;
  }

  /**
   * The log_pos of the last packet's event (a heartbeat's is the source's position in its file).
   */
  public long lastLogPos() {
    return lastLogPos;
  }

  /** The header timestamp (seconds) of the last non-heartbeat event. */
  public long lastTimestamp() {
    return lastTimestamp;
  }
}
