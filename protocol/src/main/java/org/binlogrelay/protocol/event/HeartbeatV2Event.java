package org.binlogrelay.protocol.event;

import java.nio.charset.StandardCharsets;
import org.binlogrelay.protocol.bytes.ByteReader;
import org.binlogrelay.protocol.bytes.ByteWriter;

/**
 * HEARTBEAT_V2 (41, MySQL 8.0.26+): a heartbeat whose position is not limited to 32 bits. Right
 * after the common header (no post-header) comes a list of fields, each {@code type, length, value}
 * with type and length as packed (length-encoded) integers, ended by type 0:
 *
 * <pre>
 *   type 1  log file name     value: length bytes of text
 *   type 2  log position      value: a packed integer occupying length bytes
 *   type 0  end mark          no length, no value
 * </pre>
 *
 * Unknown types are skipped by their length; a body that ends without the end mark is accepted, as
 * MySQL does. Immutable.
 *
 * @param logFile the sender's current file, "" if the field is absent
 * @param position the sender's position in it (u64), 0 if absent
 */
public record HeartbeatV2Event(String logFile, long position) {
  static final int END_MARK = 0;
  static final int LOG_FILENAME_FIELD = 1;
  static final int LOG_POSITION_FIELD = 2;

  public static HeartbeatV2Event parse(BinlogEvent event, FormatDescriptionEvent fde) {
    ByteReader in =
        EventBody.open(event, fde, EventType.HEARTBEAT_V2); // no post-header, as in MySQL
    String file = "";
    long position = 0;
    while (in.hasRemaining()) {
      long type = in.lenencInt("HEARTBEAT_V2 field type");
      if (type == END_MARK) {
        break;
      }
      long length = in.lenencInt("HEARTBEAT_V2 field length");
      in.require(length, "HEARTBEAT_V2 field " + type + " value");
      if (type == LOG_FILENAME_FIELD) {
        file = in.string((int) length, "HEARTBEAT_V2 log file name");
      } else if (type == LOG_POSITION_FIELD) {
        int end = in.position() + (int) length;
        position = in.lenencInt("HEARTBEAT_V2 log position");
        if (in.position() != end) {
          throw EventBody.error(
              event,
              in,
              "log position field says "
                  + length
                  + " bytes, packed integer used "
                  + (length - (end - in.position())));
        }
      } else {
        in.skip((int) length, "HEARTBEAT_V2 unknown field " + type);
      }
    }
    return new HeartbeatV2Event(file, position);
  }

  /** The body, fields in MySQL's order: file name, position, end mark. */
  public byte[] encodeBody() {
    byte[] name = logFile.getBytes(StandardCharsets.UTF_8);
    byte[] pos = new ByteWriter(9).lenencInt(position).toByteArray();
    return new ByteWriter(name.length + 16)
        .lenencInt(LOG_FILENAME_FIELD)
        .lenencInt(name.length)
        .bytes(name)
        .lenencInt(LOG_POSITION_FIELD)
        .lenencInt(pos.length)
        .bytes(pos)
        .lenencInt(END_MARK)
        .toByteArray();
  }
}
