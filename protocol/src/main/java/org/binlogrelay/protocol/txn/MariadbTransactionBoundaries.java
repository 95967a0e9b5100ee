package org.binlogrelay.protocol.txn;

import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.ChecksumAlgorithm;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.FormatDescriptionEvent;
import org.binlogrelay.protocol.event.MariadbGtidEvent;
import org.binlogrelay.protocol.event.QueryEvent;
import org.binlogrelay.protocol.event.XaPrepareEvent;
import org.binlogrelay.protocol.gtid.MariadbGtid;

/**
 * Transaction (event group) boundaries of a MariaDB (10.0 and later) binlog. Every group starts
 * with a GTID event (162) whose flags say how it ends: with {@code FL_STANDALONE} it is one
 * statement (DDL, or the {@code XA COMMIT}/{@code XA ROLLBACK} of a prepared XA transaction,
 * flagged {@code FL_COMPLETED_XA}), with no terminating COMMIT; otherwise BEGIN is implied and the
 * group ends at XID or a COMMIT or ROLLBACK query; with {@code FL_PREPARED_XA}, XA START is implied
 * and it ends at XA_PREPARE. These are the rules MariaDB's own dump thread and replica use to skip
 * a group:
 *
 * <pre>
 *   state        event                                                next state / result
 *   IDLE         GTID with FL_STANDALONE                               STANDALONE
 *   IDLE         GTID without it                                       IN_GROUP
 *   IDLE         FORMAT_DESCRIPTION, ROTATE, STOP, GTID_LIST,           IDLE, boundary after it
 *                BINLOG_CHECKPOINT, START_ENCRYPTION, INCIDENT
 *   STANDALONE   INTVAR, RAND, USER_VAR, TABLE_MAP, ANNOTATE_ROWS       STANDALONE (parts of the statement)
 *   STANDALONE   QUERY (not BEGIN/COMMIT/ROLLBACK), QUERY_COMPRESSED,   IDLE: complete (STATEMENT, XA_COMMIT,
 *                a rows event                                          XA_ROLLBACK)
 *   IN_GROUP     XID (not with FL_PREPARED_XA) | QUERY COMMIT |         IDLE: complete (XID, COMMIT, ROLLBACK,
 *                QUERY ROLLBACK | XA_PREPARE (only FL_PREPARED_XA)     XA_PREPARE)
 *   IN_GROUP     QUERY other (statements, XA END), QUERY_COMPRESSED,    IN_GROUP
 *                INTVAR, RAND, USER_VAR, TABLE_MAP, ANNOTATE_ROWS,
 *                rows events (v1, v2, compressed, partial), LOAD DATA
 *   any          HEARTBEAT, IGNORABLE, an unknown type with             unchanged (a boundary after it if IDLE)
 *                LOG_EVENT_IGNORABLE_F
 *   any          anything else (BEGIN query, GTID inside a group,       ProtocolException, then FAILED
 *                MySQL-only events, ...)
 * </pre>
 *
 * COMMIT and ROLLBACK are whole-query matches, as in MariaDB; they are never compressed. The
 * group's GTID is {@code domain-server-seq} with the server id from the GTID event's header.
 *
 * <p>Not thread-safe (see {@link TransactionBoundaries}).
 */
public final class MariadbTransactionBoundaries extends EventGroupTracker<MariadbGtid> {

  /** Where the stream is relative to the event group being read. */
  public enum State {
    /** At a boundary: a GTID event or a standalone event may come. */
    IDLE,
    /**
     * After a GTID with FL_STANDALONE: its one statement (and the events that prepare it) must
     * come.
     */
    STANDALONE,
    /** After a GTID without FL_STANDALONE: until XID, COMMIT, ROLLBACK or (XA) XA_PREPARE. */
    IN_GROUP,
    /** A malformed event was fed; the tracker accepts nothing more. */
    FAILED
  }

  private State state = State.IDLE;
  private MariadbGtidEvent openGtid;

  /** A tracker for a stream whose first event starts at {@code start} (4 for a binlog file). */
  public MariadbTransactionBoundaries(long start) {
    this(start, FormatDescriptionEvent.assumed(ChecksumAlgorithm.CRC32));
  }

  /**
   * A tracker starting at {@code start}, a boundary after the stream's FORMAT_DESCRIPTION event,
   * which is given as {@code format} since it will not be fed.
   */
  public MariadbTransactionBoundaries(long start, FormatDescriptionEvent format) {
    super("MariaDB", start, format);
  }

  public State state() {
    return failed() ? State.FAILED : state;
  }

  @Override
  public boolean atBoundary() {
    return !failed() && state == State.IDLE;
  }

  @Override
  protected Transaction<MariadbGtid> step(BinlogEvent event, long at) {
    switch (event.type()) {
      case MARIADB_GTID:
        requireState(event, at, state, State.IDLE);
        openGtid = MariadbGtidEvent.parse(event, format);
        state = openGtid.isStandalone() ? State.STANDALONE : State.IN_GROUP;
        return null;
      case QUERY:
        return query(event, at);
      case QUERY_COMPRESSED:
        if (state == State.STANDALONE) {
          return complete(Transaction.Ending.STATEMENT);
        }
        requireState(event, at, state, State.IN_GROUP);
        return null;
      case INTVAR:
      case RAND:
      case USER_VAR:
      case TABLE_MAP:
      case ANNOTATE_ROWS:
      case PARTIAL_ROW_DATA:
        requireState(event, at, state, State.STANDALONE, State.IN_GROUP);
        return null;
      case WRITE_ROWS_V1:
      case UPDATE_ROWS_V1:
      case DELETE_ROWS_V1:
      case WRITE_ROWS:
      case UPDATE_ROWS:
      case DELETE_ROWS:
      case WRITE_ROWS_COMPRESSED_V1:
      case UPDATE_ROWS_COMPRESSED_V1:
      case DELETE_ROWS_COMPRESSED_V1:
      case WRITE_ROWS_COMPRESSED:
      case UPDATE_ROWS_COMPRESSED:
      case DELETE_ROWS_COMPRESSED:
        if (state == State.STANDALONE) {
          return complete(Transaction.Ending.STATEMENT);
        }
        requireState(event, at, state, State.IN_GROUP);
        return null;
      case BEGIN_LOAD_QUERY:
      case APPEND_BLOCK:
      case EXECUTE_LOAD_QUERY:
      case DELETE_FILE:
        requireState(event, at, state, State.IN_GROUP);
        return null;
      case XID:
        requireState(event, at, state, State.IN_GROUP);
        if (openGtid.hasFlag(MariadbGtidEvent.FL_PREPARED_XA)) {
          throw error(event, at, "ends an XA group (FL_PREPARED_XA) that must end with XA_PREPARE");
        }
        return complete(Transaction.Ending.XID);
      case XA_PREPARE:
        requireState(event, at, state, State.IN_GROUP);
        if (!openGtid.hasFlag(MariadbGtidEvent.FL_PREPARED_XA)) {
          throw error(event, at, "ends a group whose GTID lacks FL_PREPARED_XA");
        }
        boolean onePhase = XaPrepareEvent.parse(event, format).onePhase();
        return complete(
            onePhase ? Transaction.Ending.XA_COMMIT_ONE_PHASE : Transaction.Ending.XA_PREPARE);
      case FORMAT_DESCRIPTION:
        requireState(event, at, state, State.IDLE);
        format = FormatDescriptionEvent.parse(event);
        return passThrough();
      case ROTATE:
      case STOP:
      case GTID_LIST:
      case BINLOG_CHECKPOINT:
      case START_ENCRYPTION:
      case INCIDENT:
        requireState(event, at, state, State.IDLE);
        return passThrough();
      case HEARTBEAT:
      case IGNORABLE:
        return passThrough();
      default:
        if (event.header().hasFlag(EventHeader.LOG_EVENT_IGNORABLE_F)) {
          return passThrough();
        }
        throw error(
            event, at, "is not an event a MariaDB source writes, and is not marked ignorable");
    }
  }

  private Transaction<MariadbGtid> query(BinlogEvent event, long at) {
    QueryEvent query = QueryEvent.parse(event, format);
    if (query.isBegin()) {
      throw error(
          event, at, "(BEGIN) cannot come " + where() + ": MariaDB's GTID event implies BEGIN");
    }
    if (state == State.IN_GROUP) {
      if (query.isCommit()) {
        return complete(Transaction.Ending.COMMIT);
      }
      if (query.isRollback()) {
        return complete(Transaction.Ending.ROLLBACK);
      }
      return null;
    }
    requireState(event, at, state, State.STANDALONE);
    if (query.isCommit() || query.isRollback()) {
      throw error(event, at, "(" + query.query() + ") cannot come " + where());
    }
    boolean completedXa = openGtid.hasFlag(MariadbGtidEvent.FL_COMPLETED_XA);
    if (completedXa && query.isXaCommit()) {
      return complete(Transaction.Ending.XA_COMMIT);
    }
    if (completedXa && query.isXaRollback()) {
      return complete(Transaction.Ending.XA_ROLLBACK);
    }
    if (completedXa) {
      throw error(
          event, at, "is not the XA COMMIT or XA ROLLBACK its GTID's FL_COMPLETED_XA announces");
    }
    return complete(Transaction.Ending.STATEMENT);
  }

  private Transaction<MariadbGtid> complete(Transaction.Ending ending) {
    Transaction<MariadbGtid> done = completeGroup(openGtid.gtid(), ending);
    state = State.IDLE;
    openGtid = null;
    return done;
  }

  @Override
  protected String where() {
    switch (state) {
      case IDLE:
        return "between event groups (no GTID event before it)";
      case STANDALONE:
        return "in standalone group " + openGtid.gtid() + " that starts at " + lastBoundary();
      default:
        return "inside event group " + openGtid.gtid() + " that starts at " + lastBoundary();
    }
  }
}
