package org.binlogrelay.protocol.gtid;

import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.bytes.ByteReader;
import org.binlogrelay.protocol.bytes.ByteWriter;

/**
 * MySQL's binary GTID set, as in PREVIOUS_GTIDS event bodies and the data of COM_BINLOG_DUMP_GTID.
 * All integers little-endian; UUIDs as their 16 bytes in text order.
 *
 * <pre>
 * header      8 bytes. Untagged (format 0): the number of entries in bytes 0-6, byte 7 = 0x00.
 *                      Tagged (format 1, MySQL 8.3+): byte 0 = 0x01, the number of entries in
 *                      bytes 1-6 (48 bits), byte 7 = 0x01.
 * entry       repeated "number of entries" times, one per (UUID, tag) pair:
 *   uuid          16 bytes
 *   tag           tagged format only: length as a MySQL serialization varint (for 0..32 that is
 *                 one byte holding length * 2), then that many ASCII bytes; length 0 = untagged
 *   n_intervals   8 bytes
 *   interval      repeated n_intervals times: start (8 bytes), end exclusive (8 bytes)
 * </pre>
 *
 * <p>The encoder writes entries in MySQL's order (UUID bytes unsigned, then tag with "" first) and
 * picks the tagged format exactly when some GTID has a tag. Checked against binlogs written by
 * MySQL 9.7.4, whose PREVIOUS_GTIDS bodies this produces byte for byte. One server quirk: once a
 * tag has been used, MySQL keeps writing the tagged format (with zero-length tags) until restarted,
 * even for sets without tags, because it decides from its process-wide UUID/tag map. Both forms
 * decode to the same set, so only such a server's choice of format is not reproduced.
 *
 * <p>The decoder accepts both formats and, like MySQL, merges entries that repeat a (UUID, tag)
 * pair. It requires, as MySQL does, per entry: {@code 1 <= start < end}, each start greater than
 * the previous end (sorted, disjoint, non-adjacent), and {@code end <= 2^63-1}; tags valid and at
 * most 32 bytes; and both format bytes of the tagged header equal (as MySQL 9.x does). Format 2
 * (the compact encoding MySQL 9.x can read but never writes) is refused with a ProtocolException.
 * Every count is checked against the bytes left before anything is allocated.
 *
 * <p>Stateless; thread-safe.
 */
final class MysqlGtidSetCodec {
  private static final int FORMAT_UNTAGGED = 0;
  private static final int FORMAT_TAGGED = 1;
  private static final int FORMAT_COMPACT = 2;
  private static final int UUID_BYTES = 16;
  private static final int INTERVAL_BYTES = 16;

  private MysqlGtidSetCodec() {}

  static byte[] encode(MysqlGtidSet set) {
    boolean tagged = set.hasTags();
    long count = set.tsidCount();
    ByteWriter out = new ByteWriter(8 + (int) Math.min(count * 48, 1 << 20));
    if (tagged) {
      out.u64((long) FORMAT_TAGGED << 56 | count << 8 | FORMAT_TAGGED);
    } else {
      out.u64(count);
    }
    set.forEach(
        (uuid, tag, list) -> {
          Uuids.write(out, uuid);
          if (tagged) {
            byte[] bytes = tag.getBytes(StandardCharsets.US_ASCII);
            out.u8(bytes.length << 1).bytes(bytes);
          }
          out.u64(list.intervalCount());
          for (int i = 0; i < list.intervalCount(); i++) {
            out.u64(list.start(i)).u64(list.end(i) + 1);
          }
        });
    return out.toByteArray();
  }

  static MysqlGtidSet decode(ByteReader in) {
    int at = in.position();
    long header = in.u64("GTID set header");
    int format = (int) (header >>> 56);
    long count;
    if (format == FORMAT_UNTAGGED) {
      count = header & 0x00ff_ffff_ffff_ffffL;
    } else if (format == FORMAT_TAGGED) {
      if ((header & 0xff) != FORMAT_TAGGED) {
        throw new ProtocolException(
            "GTID set at offset "
                + at
                + ": tagged header has mismatched format bytes 0x"
                + Long.toHexString(header & 0xff)
                + " and 0x01");
      }
      count = (header >>> 8) & 0xffff_ffff_ffffL;
    } else if (format == FORMAT_COMPACT) {
      throw new ProtocolException(
          "GTID set at offset "
              + at
              + ": binary format 2 (compact) is not supported;"
              + " no MySQL release sends it");
    } else {
      throw new ProtocolException(
          "GTID set at offset "
              + at
              + ": unknown binary format "
              + format
              + " in header 0x"
              + Long.toHexString(header));
    }
    boolean tagged = format == FORMAT_TAGGED;
    int smallestEntry = UUID_BYTES + (tagged ? 1 : 0) + 8;
    if (count > in.remaining() / smallestEntry) {
      throw new ProtocolException(
          "GTID set at offset "
              + at
              + " claims "
              + count
              + " entries but only "
              + in.remaining()
              + " bytes follow (each entry takes at least "
              + smallestEntry
              + ")");
    }
    MysqlGtidSet set = MysqlGtidSet.empty();
    for (long e = 0; e < count; e++) {
      decodeEntry(in, tagged, set, e);
    }
    return set;
  }

  private static void decodeEntry(ByteReader in, boolean tagged, MysqlGtidSet set, long index) {
    String what = "GTID set entry " + index;
    UUID uuid = Uuids.read(in, what + " UUID");
    String tag = tagged ? decodeTag(in, what) : "";
    int at = in.position();
    long n = in.u64(what + " interval count");
    if (n < 0 || n > in.remaining() / INTERVAL_BYTES) {
      throw new ProtocolException(
          what
              + " ("
              + uuid
              + ") at offset "
              + at
              + " claims "
              + Long.toUnsignedString(n)
              + " intervals but only "
              + in.remaining()
              + " bytes follow");
    }
    GnoIntervalList list = new GnoIntervalList();
    long previousEnd = 0;
    for (long i = 0; i < n; i++) {
      at = in.position();
      long start = in.u64(what + " interval start");
      long end = in.u64(what + " interval end");
      if (start <= previousEnd || end <= start) {
        throw new ProtocolException(
            what
                + " ("
                + uuid
                + (tag.isEmpty() ? "" : ":" + tag)
                + ") at offset "
                + at
                + ": interval ["
                + start
                + ", "
                + end
                + ") is empty, out of order, overlapping,"
                + " adjacent to the previous one or starts below 1");
      }
      list.append(start, end - 1);
      previousEnd = end;
    }
    if (list.isEmpty()) {
      return; // MySQL accepts an entry without intervals; it adds nothing
    }
    GnoIntervalList existing = set.find(uuid, tag);
    if (existing == null) {
      set.put(uuid, tag, list);
    } else {
      existing.addAll(list);
    }
  }

  private static String decodeTag(ByteReader in, String what) {
    int at = in.position();
    long length = readVarlen(in, what + " tag length");
    if (length < 0 || length > GtidTag.MAX_LENGTH) {
      throw new ProtocolException(
          what
              + " at offset "
              + at
              + ": tag length "
              + Long.toUnsignedString(length)
              + " exceeds "
              + GtidTag.MAX_LENGTH);
    }
    String tag = in.string((int) length, what + " tag");
    String problem = GtidTag.problem(tag);
    if (problem != null) {
      throw new ProtocolException(
          what + " at offset " + at + ": invalid tag '" + tag + "': " + problem);
    }
    return GtidTag.normalize(tag);
  }

  /**
   * An unsigned integer in MySQL's serialization-library varint: the count of trailing 1 bits in
   * the first byte, plus one, is the total length (1 to 9 bytes); the value's low bits follow that
   * marker in the first byte and continue little-endian in the next bytes.
   */
  static long readVarlen(ByteReader in, String what) {
    int first = in.u8(what);
    int length = Integer.numberOfTrailingZeros(~first) + 1;
    if (length == 1) {
      return (long) first >>> 1;
    }
    long low = length >= 8 ? 0 : first >>> length;
    long high = in.uint(length - 1, what);
    int shift = length == 9 ? 0 : 8 - length;
    return low | high << shift;
  }
}
