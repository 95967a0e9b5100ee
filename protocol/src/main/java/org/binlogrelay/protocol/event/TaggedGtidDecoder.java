package org.binlogrelay.protocol.event;

import java.util.UUID;
import org.binlogrelay.protocol.bytes.ByteReader;

/**
 * Reads the body of a GTID_TAGGED event (42, MySQL 8.3+), written with MySQL's {@code
 * mysql::serialization} library. Integers are {@link SerializedReader} variable-length integers.
 * The body is one message:
 *
 * <pre>
 *   varint  format version            1
 *   varint  message size              bytes from the format version to the end of the message
 *   varint  last non-ignorable field  0 when every field may be skipped; above 12 means fields this
 *                                     decoder cannot safely skip, which is refused
 *   then fields, each "varint field id, value", ids ascending; optional ones may be missing:
 *     0  gtid flags                   unsigned, 0..255
 *     1  source uuid                  16 unsigned varints, one per byte
 *     2  gno                          signed
 *     3  tag                          varint length (at most 32) then the text
 *     4  last_committed               signed
 *     5  sequence_number              signed
 *     6  immediate_commit_timestamp   unsigned
 *     7  original_commit_timestamp    unsigned; missing means equal to 6
 *     8  transaction_length           unsigned
 *     9  immediate_server_version     unsigned 32-bit
 *    10  original_server_version      unsigned 32-bit; missing means equal to 9
 *    11  commit_group_ticket          unsigned; missing means unset (0)
 * </pre>
 *
 * Fields with ids above 11 (from a newer server) are skipped by the message size. Fields 0 to 3 are
 * required. Stateless.
 */
final class TaggedGtidDecoder {
  static final int FORMAT_VERSION = 1;
  static final int LAST_FIELD_ID = 11;
  static final int UUID_FIELD = 1;
  static final int MAX_TAG_LENGTH = 32;
  private static final long U32 = 0xffffffffL;
  private static final long U8 = 0xff;
  private static final String T = "GTID_TAGGED ";

  private TaggedGtidDecoder() {}

  static GtidEvent decode(BinlogEvent event, ByteReader body) {
    int start = body.position();
    SerializedReader header = new SerializedReader(body);
    long version = header.unsigned(-1, T + "format version");
    if (version != FORMAT_VERSION) {
      throw EventBody.error(
          event, body, "serialization format version " + version + ", expected " + FORMAT_VERSION);
    }
    long size = header.unsigned(-1, T + "message size");
    if (size < body.position() - start || size > body.remaining() + (body.position() - start)) {
      throw EventBody.error(
          event,
          body,
          "message size "
              + size
              + " does not fit the "
              + (body.remaining() + body.position() - start)
              + "-byte body");
    }
    long lastNonIgnorable = header.unsigned(-1, T + "last non-ignorable field id");
    if (lastNonIgnorable > LAST_FIELD_ID + 1) {
      throw EventBody.error(
          event,
          body,
          "message has non-ignorable field "
              + (lastNonIgnorable - 1)
              + " this decoder does not know (knows up to "
              + LAST_FIELD_ID
              + ")");
    }
    int end = start + (int) size;
    ByteReader message = new ByteReader(event.buffer(), event.offset(), end);
    message.position(body.position());
    SerializedReader in = new SerializedReader(message);

    long[] values = new long[LAST_FIELD_ID + 1];
    boolean[] present = new boolean[LAST_FIELD_ID + 1];
    long[] uuid = new long[2];
    String tag = "";
    for (int id = 0; id <= LAST_FIELD_ID; id++) {
      if (in.peekUnsigned() != id) {
        continue;
      }
      in.unsigned(-1, T + "field id");
      present[id] = true;
      switch (id) {
        case 0 -> values[id] = in.unsigned(U8, T + "gtid flags");
        case UUID_FIELD -> readUuid(in, uuid);
        case 2, 4, 5 -> values[id] = in.signed(T + fieldName(id));
        case 3 -> tag = in.string(MAX_TAG_LENGTH, T + "tag");
        case 9, 10 -> values[id] = in.unsigned(U32, T + fieldName(id));
        default -> values[id] = in.unsigned(-1, T + fieldName(id));
      }
    }
    for (int id = 0; id <= 3; id++) {
      if (!present[id]) {
        throw EventBody.error(
            event, message, "required field " + fieldName(id) + " (id " + id + ") is missing");
      }
    }
    long immediateTs = values[6];
    long immediateVersion = values[9];
    return new GtidEvent(
        EventType.GTID_TAGGED,
        (int) values[0],
        new UUID(uuid[0], uuid[1]),
        tag,
        values[2],
        values[4],
        values[5],
        immediateTs,
        present[7] ? values[7] : immediateTs,
        values[8],
        immediateVersion,
        present[10] ? values[10] : immediateVersion,
        values[11]);
  }

  private static void readUuid(SerializedReader in, long[] halves) {
    for (int i = 0; i < 16; i++) {
      long b = in.unsigned(U8, T + "uuid byte " + i);
      halves[i / 8] = halves[i / 8] << 8 | b;
    }
  }

  static String fieldName(int id) {
    return switch (id) {
      case 0 -> "gtid flags";
      case 1 -> "uuid";
      case 2 -> "gno";
      case 3 -> "tag";
      case 4 -> "last_committed";
      case 5 -> "sequence_number";
      case 6 -> "immediate_commit_timestamp";
      case 7 -> "original_commit_timestamp";
      case 8 -> "transaction_length";
      case 9 -> "immediate_server_version";
      case 10 -> "original_server_version";
      case 11 -> "commit_group_ticket";
      default -> "field " + id;
    };
  }
}
