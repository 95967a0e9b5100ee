package org.binlogrelay.server.serving;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.BinlogEventDecoder;
import org.binlogrelay.protocol.event.ChecksumAlgorithm;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.event.GtidListEvent;
import org.binlogrelay.protocol.event.MariadbGtidEvent;
import org.binlogrelay.protocol.gtid.MariadbGtidSet;
import org.binlogrelay.storage.BinlogFileName;
import org.binlogrelay.storage.BinlogSource;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.OpenedFile;
import org.binlogrelay.storage.read.EventCursor;

/**
 * MariaDB's {@code BINLOG_GTID_POS(file, pos)} ({@code gtid_state_from_pos} in {@code
 * sql/sql_repl.cc}): the GTID position of a binlog coordinate, found by reading the file from its
 * start: the GTID_LIST gives the state before the file, each GTID event moves its domain on. The
 * position must be where an event starts (or the readable end); a position below 4 counts as 4, an
 * empty name as the first file. What a MariaDB replica that switches from file/position to GTID
 * asks its primary. Stateless.
 */
final class GtidPositionScan {
  private GtidPositionScan() {}

  /**
   * The position at {@code file:offset}, or empty if the file is not stored or the offset is not an
   * event start.
   */
  static Optional<MariadbGtidSet> at(BinlogSource store, String file, long offset)
      throws IOException {
    String name = file;
    if (name.isEmpty()) {
      List<FileMetadata> files = store.files();
      if (files.isEmpty()) {
        return Optional.empty();
      }
      name = files.get(0).name();
    }
    if (!BinlogFileName.isValid(name)) {
      return Optional.empty();
    }
    long target = Math.max(BinlogFileName.FIRST_EVENT_OFFSET, offset);
    long readable;
    try {
      readable = store.readableLength(name);
    } catch (NoSuchElementException notStored) {
      return Optional.empty();
    }
    if (target > readable) {
      return Optional.empty();
    }
    int maxEventSize = store.maxEventSize();
    MariadbGtidSet state = MariadbGtidSet.empty();
    try (OpenedFile opened = store.open(name)) {
      FileChannel channel = opened.channel();
      EventCursor cursor =
          new EventCursor(name, channel, BinlogFileName.FIRST_EVENT_OFFSET, readable, maxEventSize);
      BinlogEventDecoder decoder = new BinlogEventDecoder(ChecksumAlgorithm.OFF, maxEventSize);
      while (cursor.position() < target) {
        BinlogEvent event = cursor.next(decoder);
        if (event.type() == EventType.GTID_LIST) {
          state = GtidListEvent.parse(event, decoder.format()).gtidSet();
        } else if (event.type() == EventType.MARIADB_GTID) {
          state.add(MariadbGtidEvent.parse(event, decoder.format()).gtid());
        }
      }
      return cursor.position() == target ? Optional.of(state) : Optional.empty();
    }
  }
}
