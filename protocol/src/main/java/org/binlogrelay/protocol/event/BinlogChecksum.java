package org.binlogrelay.protocol.event;

import java.util.zip.CRC32;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.bytes.LittleEndian;

/**
 * The CRC32 that trails a checksummed binlog event: {@link java.util.zip.CRC32} (the zlib
 * polynomial) over the event's bytes except the last 4, which hold the value little-endian.
 *
 * <p>A FORMAT_DESCRIPTION event is checksummed as if its {@link
 * EventHeader#LOG_EVENT_BINLOG_IN_USE_F} flag were clear: the server sets that flag while writing
 * the file and clears it in place on close without recomputing the checksum, so both states verify.
 * The computation masks the flag without touching the caller's array.
 *
 * <p>Stateless; all methods are thread-safe as long as nobody writes the array concurrently.
 */
public final class BinlogChecksum {
  /** Bytes of the checksum at the end of an event. */
  public static final int SIZE = 4;

  private BinlogChecksum() {}

  /** The CRC32 of the event at {@code [offset, offset + length)}, excluding its last 4 bytes. */
  public static long compute(byte[] buf, int offset, int length) {
    if (length < EventHeader.SIZE + SIZE || offset < 0 || offset > buf.length - length) {
      throw new ProtocolException(
          "checksum: event of "
              + length
              + " bytes at offset "
              + offset
              + " is too short or outside the buffer");
    }
    CRC32 crc = new CRC32();
    int flagsAt = offset + EventHeader.FLAGS_OFFSET;
    boolean fde =
        (buf[offset + EventHeader.TYPE_OFFSET] & 0xff) == EventType.FORMAT_DESCRIPTION.code();
    if (fde && (buf[flagsAt] & EventHeader.LOG_EVENT_BINLOG_IN_USE_F) != 0) {
      crc.update(buf, offset, EventHeader.FLAGS_OFFSET);
      crc.update(buf[flagsAt] & ~EventHeader.LOG_EVENT_BINLOG_IN_USE_F);
      crc.update(buf, flagsAt + 1, length - SIZE - EventHeader.FLAGS_OFFSET - 1);
    } else {
      crc.update(buf, offset, length - SIZE);
    }
    return crc.getValue();
  }

  /** The checksum stored in the last 4 bytes of the event. */
  public static long stored(byte[] buf, int offset, int length) {
    return LittleEndian.u32(buf, offset + length - SIZE);
  }

  /** True if the stored checksum matches the computed one. */
  public static boolean verify(byte[] buf, int offset, int length) {
    return compute(buf, offset, length) == stored(buf, offset, length);
  }

  /** Computes the checksum and writes it into the last 4 bytes of the event. */
  public static void patch(byte[] buf, int offset, int length) {
    LittleEndian.put32(buf, offset + length - SIZE, compute(buf, offset, length));
  }
}
