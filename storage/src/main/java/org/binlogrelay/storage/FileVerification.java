package org.binlogrelay.storage;

/**
 * The result of reading a whole file back and checking every event: magic number, sizes, CRC32,
 * log_pos continuity and transaction structure. Immutable.
 *
 * @param file the file
 * @param length its length on disk
 * @param validUpTo the end of the last event that passed every check
 * @param lastBoundary the last transaction boundary at or before {@code validUpTo}
 * @param events events that passed
 * @param transactions complete transactions among them
 * @param problemOffset where the first bad event starts, -1 if none
 * @param problem what is wrong with it, {@code null} if nothing
 */
public record FileVerification(
    String file,
    long length,
    long validUpTo,
    long lastBoundary,
    long events,
    long transactions,
    long problemOffset,
    String problem) {

  /** True if every byte of the file is a checked event. */
  public boolean ok() {
    return problem == null && validUpTo == length;
  }
}
