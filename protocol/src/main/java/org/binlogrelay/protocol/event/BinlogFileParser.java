package org.binlogrelay.protocol.event;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.binlogrelay.protocol.event.CorruptEventException.Reason;

/**
 * Walks the events of a binlog file held in memory. Layout:
 *
 * <pre>
 *   0     4 bytes   magic 0xFE 'b' 'i' 'n'
 *   4     event     FORMAT_DESCRIPTION (required first)
 *   ...   events    each event_size bytes, back to back
 * </pre>
 *
 * Each {@link #next()} checks the event as {@link BinlogEventDecoder} does (size limit, truncation,
 * FORMAT_DESCRIPTION tracking, CRC32) and compares its log_pos with its end offset; mismatches are
 * collected in {@link #logPosMismatches()} rather than thrown. The parser does not follow
 * transactions, so an unpositioned event (log_pos 0) after the FORMAT_DESCRIPTION is taken as one
 * inside a MariaDB 11.4+ transaction ({@link EventHeader#positionFits}), not as a mismatch. A
 * truncated or corrupt event stops the walk with a {@link CorruptEventException} giving its offset,
 * which {@link #position()} also still holds: everything before it is valid.
 *
 * <p>The returned events are views of the caller's array (no copy), so their {@link
 * BinlogEvent#offset()} is the file position. Not thread-safe.
 */
public final class BinlogFileParser implements Iterator<BinlogEvent> {
  /** The 4 bytes every binlog file starts with. */
  // Written into new files and compared by storage; nobody writes into it, and a copy per use is
  // not worth it.
  @SuppressWarnings("MutablePublicArray")
  public static final byte[] MAGIC = {(byte) 0xfe, 'b', 'i', 'n'};

  private final byte[] file;
  private final int length;
  private final BinlogEventDecoder decoder;
  private final List<LogPosMismatch> mismatches = new ArrayList<>();
  private int position;

  /** Parses the whole array. */
  public BinlogFileParser(byte[] file, int maxEventSize) {
    this(file, file.length, maxEventSize);
  }

  /**
   * Parses the first {@code length} bytes (e.g. the readable part of a file being written).
   *
   * @param maxEventSize largest accepted event; MySQL's own limit is 1 GiB
   */
  public BinlogFileParser(byte[] file, int length, int maxEventSize) {
    if (length < 0 || length > file.length) {
      throw new IllegalArgumentException("length " + length + " outside 0.." + file.length);
    }
    this.file = file;
    this.length = length;
    this.decoder = new BinlogEventDecoder(ChecksumAlgorithm.OFF, maxEventSize);
    checkMagic();
    this.position = MAGIC.length;
  }

  private void checkMagic() {
    if (length < MAGIC.length) {
      throw new CorruptEventException(
          Reason.TRUNCATED, 0, "binlog file of " + length + " bytes has no magic number");
    }
    for (int i = 0; i < MAGIC.length; i++) {
      if (file[i] != MAGIC[i]) {
        throw new CorruptEventException(
            Reason.MALFORMED,
            0,
            String.format(
                "not a binlog file: starts %02x %02x %02x %02x, expected fe 62 69 6e",
                file[0], file[1], file[2], file[3]));
      }
    }
  }

  /** True while bytes remain; a partial event counts, so that {@link #next()} reports it. */
  @Override
  public boolean hasNext() {
    return position < length;
  }

  @Override
  public BinlogEvent next() {
    if (!hasNext()) {
      throw new NoSuchElementException("end of binlog at offset " + position);
    }
    int available = length - position;
    if (available < EventHeader.SIZE) {
      throw new CorruptEventException(
          Reason.TRUNCATED,
          position,
          "event at offset "
              + position
              + ": only "
              + available
              + " bytes left, the header alone is "
              + EventHeader.SIZE);
    }
    EventHeader header = EventHeader.parse(file, position);
    decoder.checkSize(header, position, available);
    if (!decoder.formatSeen() && header.type() != EventType.FORMAT_DESCRIPTION) {
      throw new CorruptEventException(
          Reason.MALFORMED,
          position,
          "binlog must start with a FORMAT_DESCRIPTION "
              + "event, found "
              + header.typeName()
              + " at offset "
              + position);
    }
    BinlogEvent event = decoder.decode(file, position, (int) header.eventSize());
    long end = (long) position + event.length();
    if (!header.positionFits(end, header.type() != EventType.FORMAT_DESCRIPTION)) {
      mismatches.add(new LogPosMismatch(position, header.typeName(), end, header.logPos()));
    }
    position = (int) end;
    return event;
  }

  /** Offset of the next event: after a failure, where the bad event starts. */
  public int position() {
    return position;
  }

  /** The current format, {@code null} before the FORMAT_DESCRIPTION event. */
  public FormatDescriptionEvent format() {
    return decoder.formatSeen() ? decoder.format() : null;
  }

  /** Events whose log_pos is not their end offset, in file order. */
  public List<LogPosMismatch> logPosMismatches() {
    return List.copyOf(mismatches);
  }
}
