package org.binlogrelay.storage.read;

import org.binlogrelay.storage.Position;

/**
 * Transactions the reader passed over because the replica already has them: {@code [from, to)} of
 * {@code file}, where {@code to} is the end of the last one skipped (a transaction boundary).
 * Immutable.
 *
 * @param file the file
 * @param from where the first skipped transaction starts
 * @param to where the last one ends; the reader stands here now
 * @param transactions how many were skipped
 */
public record Skipped(String file, long from, long to, int transactions) implements ReadResult {

  /** Where the stream stands after the skipped transactions (MySQL's heartbeat position). */
  public Position end() {
    return new Position(file, to);
  }
}
