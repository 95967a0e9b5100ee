package org.binlogrelay.storage.lookup;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.util.Arrays;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;
import org.binlogrelay.storage.BinlogFileName;
import org.binlogrelay.storage.BinlogSource;
import org.binlogrelay.storage.EventBoundaries;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.OpenedFile;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.lookup.PositionCheck.Invalid;
import org.binlogrelay.storage.lookup.PositionCheck.Problem;
import org.binlogrelay.storage.lookup.PositionCheck.Valid;
import org.binlogrelay.storage.read.BinlogReadException;
import org.binlogrelay.storage.read.EventCursor;

/**
 * Checks a file and offset a replica asks to start from ({@code COM_BINLOG_DUMP}, file-and-position
 * replication) before a reader is opened there, in the order MySQL's {@code
 * Binlog_sender::check_start_file} checks: the file must be stored ("" means the first stored
 * file), the offset at least 4 and at most the file's readable length. Then, unlike MySQL, the
 * offset must be an event boundary: the file's event headers are walked up to the offset (header
 * reads only, one window read per 64 KiB of small events), from offset 4 or from a boundary an
 * earlier check found ({@link EventBoundaries}), which is correct for any offset and reads this one
 * file only. The readable end needs no walk.
 *
 * <p>Thread-safe (stateless over the thread-safe store).
 */
public final class PositionLookup {
  private final BinlogSource store;

  public PositionLookup(BinlogSource store) {
    this.store = store;
  }

  /**
   * @param file the file asked for, or "" for the first stored file
   * @param offset the offset asked for
   */
  public PositionCheck check(String file, long offset) throws IOException {
    String name = file;
    if (name.isEmpty()) {
      List<FileMetadata> files = store.files();
      if (files.isEmpty()) {
        return new Invalid(Problem.FILE_NOT_FOUND, file, offset, -1, -1);
      }
      name = files.get(0).name();
    }
    Optional<FileMetadata> meta =
        BinlogFileName.isValid(name) ? store.file(name) : Optional.empty();
    if (meta.isEmpty()) {
      return new Invalid(Problem.FILE_NOT_FOUND, name, offset, -1, -1);
    }
    if (offset < BinlogFileName.FIRST_EVENT_OFFSET) {
      return new Invalid(Problem.BELOW_FIRST_EVENT, name, offset, -1, -1);
    }
    long readable;
    try {
      readable = store.readableLength(name);
    } catch (NoSuchElementException removed) {
      return new Invalid(Problem.FILE_NOT_FOUND, name, offset, -1, -1);
    }
    if (offset > readable) {
      Position boundary = store.readableEnd();
      boolean complete =
          boundary != null && boundary.fileSequence() > BinlogFileName.sequence(name);
      return new Invalid(
          complete ? Problem.PAST_FILE_END : Problem.NOT_YET_READABLE, name, offset, readable, -1);
    }
    long eventStart = eventContaining(name, offset, readable);
    if (eventStart != offset) {
      return new Invalid(Problem.INSIDE_EVENT, name, offset, readable, eventStart);
    }
    return new Valid(new Position(name, offset));
  }

  /**
   * The start of the event that contains {@code offset}, or {@code offset} itself if an event
   * starts there. The readable end is a transaction boundary, so asking for it (a replica
   * positioned at the head) needs no walk; else the walk starts at the closest boundary an earlier
   * walk recorded ({@link EventBoundaries}), and records the boundaries it passes, one per {@link
   * EventBoundaries#SPACING} bytes.
   */
  private long eventContaining(String name, long offset, long readable) throws IOException {
    if (offset == readable) {
      return offset;
    }
    EventBoundaries hints = store.boundaries();
    try (OpenedFile opened = store.open(name)) {
      FileChannel channel = opened.channel();
      Object identity = opened.fileKey();
      long from =
          identity == null
              ? BinlogFileName.FIRST_EVENT_OFFSET
              : hints.floor(name, identity, offset);
      if (from > BinlogFileName.FIRST_EVENT_OFFSET) {
        try {
          return walk(name, channel, identity, from, offset, readable);
        } catch (BinlogReadException stale) {
          hints.forget(
              name); // the hint was not a boundary of this file any more: walk from the start
        }
      }
      return walk(name, channel, identity, BinlogFileName.FIRST_EVENT_OFFSET, offset, readable);
    }
  }

  private long walk(
      String name, FileChannel channel, Object identity, long from, long offset, long readable)
      throws IOException {
    EventCursor cursor = new EventCursor(name, channel, from, readable, store.maxEventSize());
    long[] found = new long[16];
    int count = 0;
    long lastRecorded = from;
    long result;
    while (true) {
      long start = cursor.position();
      if (start >= offset) {
        result = start;
        break;
      }
      cursor.skip();
      if (cursor.position() > offset) {
        result = start;
        break;
      }
      if (cursor.position() - lastRecorded >= EventBoundaries.SPACING) {
        if (count == found.length) {
          found = Arrays.copyOf(found, count * 2);
        }
        found[count++] = cursor.position();
        lastRecorded = cursor.position();
      }
    }
    if (identity != null) {
      store.boundaries().record(name, identity, found, count);
    }
    return result;
  }
}
