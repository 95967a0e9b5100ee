package org.binlogrelay.storage;

/**
 * Bytes recovery (or a stream restart) cut from the end of a file, and why. Immutable.
 *
 * @param file the file cut
 * @param offset its new length: the last transaction boundary before the problem
 * @param bytes how many bytes were removed
 * @param problemOffset where the problem was found (the first bad or incomplete event)
 * @param reason what was wrong, e.g. "CRC32 mismatch", "incomplete transaction", "truncated event"
 */
public record Truncation(String file, long offset, long bytes, long problemOffset, String reason) {

  @Override
  public String toString() {
    return "cut "
        + bytes
        + " bytes of "
        + file
        + " from offset "
        + offset
        + " (problem at "
        + problemOffset
        + ": "
        + reason
        + ")";
  }
}
