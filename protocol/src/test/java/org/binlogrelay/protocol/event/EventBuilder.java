package org.binlogrelay.protocol.event;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Test side: makes synthetic binlog events and files with correct sizes, log positions and CRC32s
 * (in the spirit of Vitess' {@code binlog_event_make.go}). Each {@code add*} call appends one event
 * at the current position, with log_pos set to its end, and returns its bytes; {@link #file()}
 * returns the magic number and every event so far. Bodies come from {@link EventBodies}. Not
 * thread-safe.
 */
final class EventBuilder {
  static final String MYSQL_VERSION = "9.7.4";
  static final String MARIADB_VERSION = "10.11.19-MariaDB-log";

  private final ByteArrayOutputStream file = new ByteArrayOutputStream();
  private final List<byte[]> events = new ArrayList<>();
  private final String version;
  private final byte[] postHeaders;
  private long timestamp = 1_795_319_847L;
  private long serverId = 1;
  private boolean checksum;
  private FormatDescriptionEvent format;

  private EventBuilder(String version, byte[] postHeaders) {
    this.version = version;
    this.postHeaders = postHeaders;
    file.writeBytes(BinlogFileParser.MAGIC);
  }

  /** A MySQL 9.7 file; call {@link #addFormatDescription} first. */
  static EventBuilder mysql() {
    return new EventBuilder(MYSQL_VERSION, EventBodies.MYSQL_POST_HEADERS);
  }

  /**
   * A builder whose FORMAT_DESCRIPTION carries {@code postHeaders} (to test non-default layouts).
   */
  static EventBuilder custom(String version, byte[] postHeaders) {
    return new EventBuilder(version, postHeaders.clone());
  }

  static EventBuilder mariadb() {
    return new EventBuilder(MARIADB_VERSION, EventBodies.MARIADB_POST_HEADERS);
  }

  /** A MySQL 9.7 file with its FORMAT_DESCRIPTION written, checksums on. */
  static EventBuilder mysqlWithFde() {
    EventBuilder b = mysql();
    b.addFormatDescription(ChecksumAlgorithm.CRC32);
    return b;
  }

  static EventBuilder mariadbWithFde() {
    EventBuilder b = mariadb();
    b.addFormatDescription(ChecksumAlgorithm.CRC32);
    return b;
  }

  EventBuilder serverId(long id) {
    serverId = id;
    return this;
  }

  EventBuilder timestamp(long seconds) {
    timestamp = seconds;
    return this;
  }

  /** Current position: where the next event will start. */
  long position() {
    return file.size();
  }

  boolean checksum() {
    return checksum;
  }

  /** The FORMAT_DESCRIPTION written last (parsed back), for the body parsers. */
  FormatDescriptionEvent format() {
    return format;
  }

  /**
   * Appends a FORMAT_DESCRIPTION. With CRC32 the event carries a checksum; with OFF it carries the
   * algorithm byte and 4 bytes of room holding a CRC32 anyway (as MySQL writes); later events
   * follow suit.
   */
  byte[] addFormatDescription(ChecksumAlgorithm alg) {
    byte[] body = EventBodies.formatDescription(version, 0, postHeaders, alg);
    byte[] event;
    if (alg == ChecksumAlgorithm.OFF) {
      byte[] withRoom = Arrays.copyOf(body, body.length + BinlogChecksum.SIZE);
      event = assemble(EventType.FORMAT_DESCRIPTION.code(), 0, withRoom, false);
      BinlogChecksum.patch(event, 0, event.length);
    } else {
      event =
          assemble(EventType.FORMAT_DESCRIPTION.code(), 0, body, alg == ChecksumAlgorithm.CRC32);
    }
    checksum = alg == ChecksumAlgorithm.CRC32;
    format = FormatDescriptionEvent.parse(event, 0, event.length);
    return append(event);
  }

  /**
   * Appends an event of {@code typeCode} with {@code body}, checksummed as the current format says.
   */
  byte[] add(int typeCode, int flags, byte[] body) {
    return append(assemble(typeCode, flags, body, checksum));
  }

  byte[] add(EventType type, byte[] body) {
    return add(type.code(), 0, body);
  }

  /** Builds an event at the current position without appending it. */
  byte[] assemble(int typeCode, int flags, byte[] body, boolean withChecksum) {
    int size = EventHeader.SIZE + body.length + (withChecksum ? BinlogChecksum.SIZE : 0);
    EventHeader header =
        new EventHeader(timestamp, typeCode, serverId, size, position() + size, flags);
    return BinlogEvent.assemble(header, body, withChecksum).toByteArray();
  }

  private byte[] append(byte[] event) {
    file.writeBytes(event);
    events.add(event);
    return event;
  }

  /** Wraps bytes made by this builder as an event, checksummed as the current format says. */
  BinlogEvent wrap(byte[] event) {
    return BinlogEvent.wrap(event, checksum);
  }

  byte[] file() {
    return file.toByteArray();
  }

  List<byte[]> events() {
    return List.copyOf(events);
  }
}
