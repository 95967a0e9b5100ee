package org.binlogrelay.storage.pitr;

/**
 * No stop point can be given for what was asked: the message says what the store holds and what to
 * do; {@link #reason()} says which case it is, for an admin API's status code.
 */
public final class StopPointException extends Exception {
  private static final long serialVersionUID = 1L;

  /** Why no stop point was found. */
  public enum Reason {
    /** The store holds no file. */
    EMPTY_STORE,
    /** The stop would come before the first stored transaction: nothing to roll forward. */
    BEFORE_FIRST_TRANSACTION,
    /** The GTID is not in the stored binlog (purged, or never logged). */
    GTID_NOT_FOUND,
    /** The set has GTIDs the store has not logged. */
    GTIDS_NOT_STORED
  }

  private final Reason reason;

  public StopPointException(Reason reason, String message) {
    super(message);
    this.reason = reason;
  }

  public Reason reason() {
    return reason;
  }
}
