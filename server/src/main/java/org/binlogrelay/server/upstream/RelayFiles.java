package org.binlogrelay.server.upstream;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.event.FormatDescriptionEvent;
import org.binlogrelay.protocol.event.RotateEvent;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.protocol.txn.TransactionBoundaries;
import org.binlogrelay.storage.BinlogFileName;
import org.binlogrelay.storage.Position;

/**
 * Writes the dump stream of a server other than the one that wrote the stored files (a new source
 * after a switch, resumed by GTID) into files the relay names: the store's base name with the next
 * sequence numbers, so that stored files are never overwritten or reordered, whatever the new
 * source calls its own files.
 *
 * <p>What the store is given, per connection:
 *
 * <pre>
 *   ROTATE (artificial) to the next relay file, offset 4   - the store closes its last file, if open, as it is
 *   FORMAT_DESCRIPTION  the source's, with the relay's server_id, log_pos 4 + size, CRC32 again
 *   PREVIOUS_GTIDS / GTID_LIST   the store's GTIDs at that point, made by the relay (relay's server_id)
 *   events ...          the source's, log_pos rewritten to the relay file's offsets, CRC32 again (events a
 *                       MariaDB 11.4+ source sends unpositioned inside a transaction keep log_pos 0)
 *   ROTATE              for each ROTATE of the source: to the next relay file (relay's server_id); then the
 *                       source's next FORMAT_DESCRIPTION and a header again, as above
 * </pre>
 *
 * Dropped: heartbeats, artificial events and events with log_pos 0 outside a transaction (made up
 * by the source for the dump), the source's own PREVIOUS_GTIDS / GTID_LIST (the relay writes its
 * own) and MariaDB's BINLOG_CHECKPOINT (it names the source's files). A STOP of the source is kept;
 * the source's next file then starts a relay file after an artificial ROTATE, as after a restarted
 * primary. Every connection starts a new relay file, so that one file never mixes two connections'
 * formats (checksum settings may differ).
 *
 * <p>The relay's server_id in each FORMAT_DESCRIPTION marks the file as the relay's ({@link
 * StoreTail#writtenBy()}): a later connection, to any server, resumes by GTID again.
 *
 * <p>Not thread-safe: the connection's thread.
 */
final class RelayFiles implements StreamMapping {

  /** The store's executed GTIDs once everything up to a position is stored. */
  @FunctionalInterface
  interface StoredGtids {
    GtidSet upTo(Position end) throws IOException;
  }

  private enum Phase {
    /** Nothing written yet: the source's first FORMAT_DESCRIPTION starts the first relay file. */
    START,
    /** Events of the source go to the relay file. */
    IN_FILE,
    /**
     * The relay's ROTATE was written: the source's next FORMAT_DESCRIPTION starts the next relay
     * file.
     */
    ROTATED,
    /**
     * The source's STOP was written: its next FORMAT_DESCRIPTION starts a relay file after an
     * artificial ROTATE.
     */
    STOPPED
  }

  private final StoreTail tail;
  private final long relayServerId;
  private final PrimaryFlavor flavor;
  private final StoredGtids gtids;
  private Phase phase = Phase.START;

  /** The relay file written to (in START: the store's last). */
  private String file;

  /** Where the next event goes in {@link #file}. */
  private long offset;

  /** Whether events of {@link #file} carry a CRC32. */
  private boolean checksum;

  /** Where the store ends after the last event given to it (at first: the tail). */
  private Position storedEnd;

  /** The transactions of {@link #file}, fed with what it is given (from its header on). */
  private TransactionBoundaries<?> transactions;

  /**
   * @param tail the store's end
   * @param relayServerId the relay's server_id, put in the events it makes and its
   *     FORMAT_DESCRIPTIONs
   * @param flavor says which header event lists the GTIDs before a file
   * @param gtids the store's GTIDs at a position, for those headers
   */
  RelayFiles(StoreTail tail, long relayServerId, PrimaryFlavor flavor, StoredGtids gtids) {
    this.tail = tail;
    this.relayServerId = relayServerId;
    this.flavor = flavor;
    this.gtids = gtids;
    this.file = tail.end().file();
    this.offset = tail.end().offset();
    this.storedEnd = tail.end();
  }

  /** The relay file events go to now, and where the next one goes. */
  Position position() {
    return new Position(file, offset);
  }

  @Override
  public List<BinlogEvent> map(BinlogEvent event, FormatDescriptionEvent format)
      throws IOException {
    EventType type = event.type();
    EventHeader h = event.header();
    if (type == EventType.FORMAT_DESCRIPTION) {
      return formatDescription(event);
    }
    if (type == EventType.HEARTBEAT
        || type == EventType.HEARTBEAT_V2
        || h.hasFlag(EventHeader.LOG_EVENT_ARTIFICIAL_F)
        || (h.logPos() == 0 && !insideTransaction())) {
      return List.of();
    }
    requireInFile(event);
    if (type == EventType.PREVIOUS_GTIDS
        || type == EventType.GTID_LIST
        || type == EventType.BINLOG_CHECKPOINT) {
      return List.of();
    }
    if (type == EventType.ROTATE) {
      return List.of(rotate(event, format));
    }
    long end = offset + event.length();
    // An unpositioned event (MariaDB 11.4+) stays so: its bytes do not depend on where it is.
    BinlogEvent moved = h.logPos() == 0 ? event : EventRewrite.moved(event, end);
    transactions.accept(moved, offset);
    offset = end;
    storedEnd = position();
    if (type == EventType.STOP) {
      phase = Phase.STOPPED;
    }
    return List.of(moved);
  }

  /**
   * Whether a transaction of the relay file is open: an event with log_pos 0 is then one of it
   * (MariaDB 11.4+).
   */
  private boolean insideTransaction() {
    return phase == Phase.IN_FILE && !transactions.atBoundary();
  }

  private List<BinlogEvent> formatDescription(BinlogEvent fde) throws IOException {
    switch (phase) {
      case IN_FILE -> {
        if (fde.header().logPos() == 0) {
          return List.of(); // a copy the source sends to describe the stream, not a file start
        }
        throw new ProtocolException(
            "the source sent a FORMAT_DESCRIPTION (log_pos "
                + fde.header().logPos()
                + ") in the middle of a file, without a ROTATE or STOP before it; relay file "
                + position());
      }
      case START -> {
        List<BinlogEvent> out = new ArrayList<>();
        file = tail.nextFile();
        out.add(
            EventRewrite.artificialRotate(
                file, BinlogFileName.FIRST_EVENT_OFFSET, relayServerId, fde.hasChecksum()));
        out.addAll(startFile(fde));
        return out;
      }
      case ROTATED -> {
        return startFile(fde);
      }
      default -> {
        List<BinlogEvent> out = new ArrayList<>();
        file = BinlogFileName.next(file);
        out.add(
            EventRewrite.artificialRotate(
                file, BinlogFileName.FIRST_EVENT_OFFSET, relayServerId, fde.hasChecksum()));
        out.addAll(startFile(fde));
        return out;
      }
    }
  }

  /**
   * The relay file {@link #file} starts: the source's FORMAT_DESCRIPTION made the relay's, then the
   * GTID header with the store's GTIDs up to where it ends now.
   */
  private List<BinlogEvent> startFile(BinlogEvent sourceFde) throws IOException {
    BinlogEvent fde = EventRewrite.fileStart(sourceFde, relayServerId);
    FormatDescriptionEvent format = FormatDescriptionEvent.parse(fde);
    int postHeader =
        format.postHeaderLength(flavor.gtidHeaderType(), flavor.gtidHeaderPostHeaderLength());
    if (postHeader != flavor.gtidHeaderPostHeaderLength()) {
      throw new ProtocolException(
          "the source's FORMAT_DESCRIPTION ("
              + format.serverVersion()
              + ") gives "
              + flavor.gtidHeaderType()
              + " a post-header of "
              + postHeader
              + " bytes; the relay writes "
              + flavor.gtidHeaderPostHeaderLength());
    }
    checksum = format.eventsHaveChecksum();
    long at = BinlogFileName.FIRST_EVENT_OFFSET + fde.length();
    byte[] body = flavor.gtidHeaderBody(gtids.upTo(storedEnd));
    BinlogEvent header =
        EventRewrite.made(
            flavor.gtidHeaderType(),
            sourceFde.header().timestamp(),
            relayServerId,
            0,
            at,
            body,
            checksum);
    offset = at + header.length();
    storedEnd = position();
    transactions = TransactionBoundaries.of(flavor.gtidFlavor(), offset, format);
    phase = Phase.IN_FILE;
    return List.of(fde, header);
  }

  /** The source's ROTATE becomes the relay's, to the next relay file. */
  private BinlogEvent rotate(BinlogEvent sourceRotate, FormatDescriptionEvent format) {
    RotateEvent parsed = RotateEvent.parse(sourceRotate, format);
    if (parsed.position() != BinlogFileName.FIRST_EVENT_OFFSET) {
      throw new ProtocolException(
          "the source's ROTATE at log_pos "
              + sourceRotate.header().logPos()
              + " continues at "
              + parsed.nextFile()
              + ":"
              + parsed.position()
              + "; only rotations to offset 4 exist in a binlog");
    }
    String next = BinlogFileName.next(file);
    byte[] body = new RotateEvent(BinlogFileName.FIRST_EVENT_OFFSET, next).encodeBody();
    BinlogEvent rotate =
        EventRewrite.made(
            EventType.ROTATE,
            sourceRotate.header().timestamp(),
            relayServerId,
            0,
            offset,
            body,
            checksum);
    storedEnd = new Position(file, offset + rotate.length());
    file = next;
    offset = BinlogFileName.FIRST_EVENT_OFFSET;
    phase = Phase.ROTATED;
    return rotate;
  }

  private void requireInFile(BinlogEvent event) {
    if (phase != Phase.IN_FILE) {
      throw new ProtocolException(
          "the source sent "
              + event.header().typeName()
              + " (log_pos "
              + event.header().logPos()
              + ") where "
              + (phase == Phase.START
                  ? "its FORMAT_DESCRIPTION must come first"
                  : "a FORMAT_DESCRIPTION must start its next file")
              + "; relay file "
              + position());
    }
  }

  @Override
  public String toString() {
    return "relay-named files from " + tail.nextFile();
  }
}
