package org.binlogrelay.storage.read;

import org.binlogrelay.storage.BinlogFileName;
import org.binlogrelay.storage.Position;

/**
 * The reader read {@code from} to its end and continues with {@code to} at offset 4. Immutable.
 *
 * @param from the file finished
 * @param to the file now read, from its first event (the FORMAT_DESCRIPTION)
 */
public record FileChange(String from, String to) implements ReadResult {

  /** Where the reader now stands: the first event of {@link #to()}. */
  public Position start() {
    return new Position(to, BinlogFileName.FIRST_EVENT_OFFSET);
  }
}
