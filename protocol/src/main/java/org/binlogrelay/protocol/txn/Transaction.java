package org.binlogrelay.protocol.txn;

/**
 * One complete transaction (MySQL) or event group (MariaDB) found by a {@link
 * TransactionBoundaries}: the bytes {@code [start, end)} of the stream, from its GTID event to the
 * event that completed it. Immutable.
 *
 * @param <G> the flavour's GTID type ({@code MysqlGtid} or {@code MariadbGtid})
 * @param gtid the transaction's GTID; {@code null} only for a MySQL ANONYMOUS_GTID transaction
 * @param start stream position of its GTID event
 * @param end stream position just after its last event; always a transaction boundary
 * @param ending what completed it
 */
public record Transaction<G>(G gtid, long start, long end, Ending ending) {

  /** The event that completed a transaction, which says what kind of transaction it was. */
  public enum Ending {
    /** XID event: a transactional commit. */
    XID,
    /**
     * QUERY {@code COMMIT}: a group of non-transactional changes (MyISAM), or an empty transaction.
     */
    COMMIT,
    /**
     * QUERY {@code ROLLBACK}: changes to non-transactional tables kept although the transaction
     * rolled back.
     */
    ROLLBACK,
    /** XA_PREPARE event after {@code XA END}: the prepared half of an XA transaction. */
    XA_PREPARE,
    /** XA_PREPARE event with one_phase set: {@code XA COMMIT ... ONE PHASE} (MySQL). */
    XA_COMMIT_ONE_PHASE,
    /**
     * QUERY {@code XA COMMIT xid} after its own GTID: commits an earlier prepared XA transaction.
     */
    XA_COMMIT,
    /**
     * QUERY {@code XA ROLLBACK xid} after its own GTID (or ending an XA transaction before
     * prepare).
     */
    XA_ROLLBACK,
    /** One statement after the GTID, without BEGIN: DDL, or statements MariaDB marks standalone. */
    STATEMENT,
    /** TRANSACTION_PAYLOAD: the whole transaction, compressed, after the GTID (MySQL 8.0.20+). */
    PAYLOAD,
    /** INCIDENT after its own GTID: the source could not log something (MySQL). */
    INCIDENT
  }

  public Transaction {
    if (start < 0 || end <= start) {
      throw new IllegalArgumentException(
          "transaction [" + start + ", " + end + ") is empty or negative");
    }
    if (ending == null) {
      throw new IllegalArgumentException("ending is required");
    }
  }

  /** Bytes from the GTID event to the end of the last event. */
  public long length() {
    return end - start;
  }

  @Override
  public String toString() {
    return (gtid == null ? "anonymous" : gtid.toString())
        + " ["
        + start
        + ", "
        + end
        + ") "
        + ending;
  }
}
