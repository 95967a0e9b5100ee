package org.binlogrelay.storage;

/**
 * What {@link BinlogStore#append} did with one event from the primary's stream. Immutable.
 *
 * @param written true if the event's bytes went into a file; false for the events the primary makes
 *     up for the dump (artificial ROTATE, a FORMAT_DESCRIPTION with log_pos 0, heartbeats,
 *     artificial GTID_LIST or BINLOG_CHECKPOINT), which are checked and then dropped
 * @param position where the stream now stands: the end of the event when written, otherwise the
 *     position the next event must have ({@code null} while an empty store waits for its first
 *     file)
 * @param completedTransaction true if the event completed a transaction; {@code position} is then
 *     the transaction's end, the position to pass to {@link BinlogStore#whenDurable} before
 *     acknowledging it
 * @param gtid the GTID of the transaction completed, as the server prints it; {@code null} if none
 *     was completed or the transaction was anonymous
 */
public record Appended(
    boolean written, Position position, boolean completedTransaction, String gtid) {}
