package org.binlogrelay.protocol.txn;

import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.FormatDescriptionEvent;
import org.binlogrelay.protocol.gtid.GtidFlavor;

/**
 * Follows a binlog event stream and knows, after every event, whether the stream is at a
 * transaction boundary: whether everything fed so far is complete transactions and standalone
 * events (FORMAT_DESCRIPTION, ROTATE, STOP, PREVIOUS_GTIDS, GTID_LIST, BINLOG_CHECKPOINT,
 * HEARTBEAT, a GTID-less INCIDENT). A relay only serves, acknowledges and keeps what lies before
 * the last boundary: crash recovery truncates a file to {@link #lastBoundary()} of its readable
 * events, and a replica is never sent half a transaction.
 *
 * <p>One implementation per flavour, chosen once per source (STYLE.md section 4): {@link
 * MysqlTransactionBoundaries} and {@link MariadbTransactionBoundaries}. Each is a small explicit
 * state machine; their class comments list the rules. An event that cannot come where it comes (a
 * GTID inside a transaction, an XID outside one, an unknown event not marked ignorable) is a {@link
 * ProtocolException} naming the event, its position and the open transaction: a malformed stream is
 * never accepted.
 *
 * <p>Positions are offsets in one contiguous byte sequence, normally one binlog file (where the
 * first event starts at 4, after the magic number). Events must be fed in order and back to back:
 * the position of each event must be where the previous one ended. Events inside a
 * TRANSACTION_PAYLOAD are not fed.
 *
 * <p>Not thread-safe: one instance per file or stream, fed by its single reader or writer. Readers
 * of another thread should be handed {@link #lastBoundary()} through their own published position.
 *
 * @param <G> the flavour's GTID type
 */
public interface TransactionBoundaries<G> {

  /**
   * The flavour's tracker for a stream whose first event starts at {@code start}.
   *
   * @param format the stream's FORMAT_DESCRIPTION when it will not be fed (the tracker starts after
   *     it), or {@code null} when the stream starts with it (a file from offset 4)
   */
  static TransactionBoundaries<?> of(GtidFlavor flavor, long start, FormatDescriptionEvent format) {
    return switch (flavor) {
      case MYSQL ->
          format == null
              ? new MysqlTransactionBoundaries(start)
              : new MysqlTransactionBoundaries(start, format);
      case MARIADB ->
          format == null
              ? new MariadbTransactionBoundaries(start)
              : new MariadbTransactionBoundaries(start, format);
    };
  }

  /**
   * Feeds the next event.
   *
   * @param event the whole event (header, body, checksum), already checked by the event decoder
   * @param position where the event starts in the stream; must equal {@link #position()}
   * @return the transaction this event completed, or {@code null} if it completed none
   * @throws ProtocolException if the event cannot appear here; the tracker is then unusable
   * @throws IllegalArgumentException if {@code position} is not where the previous event ended
   */
  Transaction<G> accept(BinlogEvent event, long position);

  /** True if everything fed so far is complete transactions and standalone events. */
  boolean atBoundary();

  /**
   * The position just after the last event that left the stream at a boundary (or the start
   * position, before any such event). When not {@link #atBoundary()}, this is where the open
   * transaction starts.
   */
  long lastBoundary();

  /** Where the next event must start: the end of the last event fed. */
  long position();
}
