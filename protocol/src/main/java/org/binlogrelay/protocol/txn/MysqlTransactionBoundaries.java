package org.binlogrelay.protocol.txn;

import java.nio.charset.StandardCharsets;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.ChecksumAlgorithm;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.event.FormatDescriptionEvent;
import org.binlogrelay.protocol.event.GtidEvent;
import org.binlogrelay.protocol.event.QueryEvent;
import org.binlogrelay.protocol.event.XaPrepareEvent;
import org.binlogrelay.protocol.gtid.MysqlGtid;

/**
 * Transaction boundaries of a MySQL (8.0 to 9.x) binlog. Every transaction starts with a GTID,
 * GTID_TAGGED or ANONYMOUS_GTID event; what follows decides where it ends. The rules follow the
 * server's own transaction boundary parser, made stricter where a MySQL 8+ source never writes the
 * sequence (rows without BEGIN, statements without a GTID):
 *
 * <pre>
 *   state             event                                        next state / result
 *   IDLE              GTID, GTID_TAGGED, ANONYMOUS_GTID            AFTER_GTID
 *   IDLE              FORMAT_DESCRIPTION, ROTATE, STOP,            IDLE, boundary after it
 *                     PREVIOUS_GTIDS, INCIDENT (no GTID)
 *   AFTER_GTID        QUERY BEGIN | XA START                       IN_TRANSACTION
 *   AFTER_GTID        QUERY other (DDL, XA COMMIT, XA ROLLBACK),   IDLE: complete (STATEMENT, XA_COMMIT,
 *                     VIEW_CHANGE, TRANSACTION_PAYLOAD, INCIDENT   XA_ROLLBACK, PAYLOAD, INCIDENT)
 *   AFTER_GTID        INTVAR, RAND, USER_VAR                       BEFORE_STATEMENT
 *   BEFORE_STATEMENT  INTVAR, RAND, USER_VAR                       BEFORE_STATEMENT
 *   BEFORE_STATEMENT  QUERY other than BEGIN/COMMIT/[XA] ROLLBACK  IDLE: complete (STATEMENT)
 *   IN_TRANSACTION    XID | QUERY COMMIT | QUERY ROLLBACK |        IDLE: complete (XID, COMMIT, ROLLBACK,
 *                     QUERY XA ROLLBACK | XA_PREPARE               XA_ROLLBACK, XA_PREPARE[_ONE_PHASE])
 *   IN_TRANSACTION    QUERY other (statements, XA END, SAVEPOINT,  IN_TRANSACTION
 *                     ROLLBACK TO), TABLE_MAP, rows events,
 *                     ROWS_QUERY, INTVAR, RAND, USER_VAR,
 *                     VIEW_CHANGE, LOAD DATA events
 *   any               HEARTBEAT(_V2), IGNORABLE,                   unchanged (a boundary after it if IDLE)
 *                     TRANSACTION_CONTEXT, DELETE_FILE, SLAVE,
 *                     an unknown type with LOG_EVENT_IGNORABLE_F
 *   any               anything else                                ProtocolException, then FAILED
 * </pre>
 *
 * {@code ROLLBACK} is matched as the server does: the query starts with ROLLBACK (any case) but not
 * {@code ROLLBACK TO}. The FORMAT_DESCRIPTION events fed are used to read QUERY, GTID and
 * XA_PREPARE bodies.
 *
 * <p>Not thread-safe (see {@link TransactionBoundaries}).
 */
public final class MysqlTransactionBoundaries extends EventGroupTracker<MysqlGtid> {

  /** Where the stream is relative to the transaction being read. */
  public enum State {
    /** At a boundary: a GTID event or a standalone event may come. */
    IDLE,
    /** After the GTID event: BEGIN, a single statement, a payload or an incident must come. */
    AFTER_GTID,
    /** After INTVAR, RAND or USER_VAR without BEGIN: the statement they belong to must come. */
    BEFORE_STATEMENT,
    /** After BEGIN or XA START: until XID, COMMIT, ROLLBACK, XA_PREPARE or XA ROLLBACK. */
    IN_TRANSACTION,
    /** A malformed event was fed; the tracker accepts nothing more. */
    FAILED
  }

  private static final byte[] ROLLBACK = "ROLLBACK".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] ROLLBACK_TO = "ROLLBACK TO ".getBytes(StandardCharsets.US_ASCII);

  private State state = State.IDLE;
  private MysqlGtid openGtid;
  private boolean openAnonymous;

  /** A tracker for a stream whose first event starts at {@code start} (4 for a binlog file). */
  public MysqlTransactionBoundaries(long start) {
    this(start, FormatDescriptionEvent.assumed(ChecksumAlgorithm.CRC32));
  }

  /**
   * A tracker starting at {@code start}, a boundary after the stream's FORMAT_DESCRIPTION event,
   * which is given as {@code format} since it will not be fed.
   */
  public MysqlTransactionBoundaries(long start, FormatDescriptionEvent format) {
    super("MySQL", start, format);
  }

  public State state() {
    return failed() ? State.FAILED : state;
  }

  @Override
  public boolean atBoundary() {
    return !failed() && state == State.IDLE;
  }

  @Override
  protected Transaction<MysqlGtid> step(BinlogEvent event, long at) {
    EventType type = event.type();
    switch (type) {
      case GTID:
      case GTID_TAGGED:
      case ANONYMOUS_GTID:
        requireState(event, at, state, State.IDLE);
        GtidEvent gtid = GtidEvent.parse(event, format);
        openAnonymous = gtid.isAnonymous();
        openGtid = openAnonymous ? null : gtid.gtid();
        state = State.AFTER_GTID;
        return null;
      case QUERY:
        return query(event, at);
      case INTVAR:
      case RAND:
      case USER_VAR:
        if (state == State.AFTER_GTID) {
          state = State.BEFORE_STATEMENT;
        } else {
          requireState(event, at, state, State.BEFORE_STATEMENT, State.IN_TRANSACTION);
        }
        return null;
      case TABLE_MAP:
      case WRITE_ROWS:
      case UPDATE_ROWS:
      case DELETE_ROWS:
      case PARTIAL_UPDATE_ROWS:
      case ROWS_QUERY:
      case BEGIN_LOAD_QUERY:
      case APPEND_BLOCK:
      case EXECUTE_LOAD_QUERY:
        requireState(event, at, state, State.IN_TRANSACTION);
        return null;
      case VIEW_CHANGE:
        if (state == State.AFTER_GTID) {
          return complete(Transaction.Ending.STATEMENT);
        }
        requireState(event, at, state, State.IN_TRANSACTION);
        return null;
      case XID:
        requireState(event, at, state, State.IN_TRANSACTION);
        return complete(Transaction.Ending.XID);
      case XA_PREPARE:
        requireState(event, at, state, State.IN_TRANSACTION);
        boolean onePhase = XaPrepareEvent.parse(event, format).onePhase();
        return complete(
            onePhase ? Transaction.Ending.XA_COMMIT_ONE_PHASE : Transaction.Ending.XA_PREPARE);
      case TRANSACTION_PAYLOAD:
        requireState(event, at, state, State.AFTER_GTID);
        return complete(Transaction.Ending.PAYLOAD);
      case INCIDENT:
        if (state == State.AFTER_GTID) {
          return complete(Transaction.Ending.INCIDENT);
        }
        requireState(event, at, state, State.IDLE);
        return passThrough();
      case FORMAT_DESCRIPTION:
        requireState(event, at, state, State.IDLE);
        format = FormatDescriptionEvent.parse(event);
        return passThrough();
      case ROTATE:
      case STOP:
      case PREVIOUS_GTIDS:
        requireState(event, at, state, State.IDLE);
        return passThrough();
      case HEARTBEAT:
      case HEARTBEAT_V2:
      case IGNORABLE:
      case TRANSACTION_CONTEXT:
      case DELETE_FILE:
      case SLAVE:
        return passThrough();
      default:
        if (event.header().hasFlag(EventHeader.LOG_EVENT_IGNORABLE_F)) {
          return passThrough();
        }
        throw error(
            event, at, "is not an event a MySQL 8+ source writes, and is not marked ignorable");
    }
  }

  private Transaction<MysqlGtid> query(BinlogEvent event, long at) {
    QueryEvent query = QueryEvent.parse(event, format);
    if (query.isBegin() || query.isXaStart()) {
      requireState(event, at, state, State.AFTER_GTID);
      state = State.IN_TRANSACTION;
      return null;
    }
    if (query.isCommit()) {
      requireState(event, at, state, State.IN_TRANSACTION);
      return complete(Transaction.Ending.COMMIT);
    }
    if (query.isXaRollback()) {
      requireState(event, at, state, State.AFTER_GTID, State.IN_TRANSACTION);
      return complete(Transaction.Ending.XA_ROLLBACK);
    }
    if (isRollback(query.queryBytes())) {
      requireState(event, at, state, State.IN_TRANSACTION);
      return complete(Transaction.Ending.ROLLBACK);
    }
    if (state == State.IN_TRANSACTION) {
      return null;
    }
    requireState(event, at, state, State.AFTER_GTID, State.BEFORE_STATEMENT);
    return complete(
        query.isXaCommit() ? Transaction.Ending.XA_COMMIT : Transaction.Ending.STATEMENT);
  }

  /** The server's test: starts with ROLLBACK in any case, but is not ROLLBACK TO (a savepoint). */
  private static boolean isRollback(byte[] query) {
    return startsWithIgnoreCase(query, ROLLBACK) && !startsWithIgnoreCase(query, ROLLBACK_TO);
  }

  private static boolean startsWithIgnoreCase(byte[] text, byte[] prefix) {
    if (text.length < prefix.length) {
      return false;
    }
    for (int i = 0; i < prefix.length; i++) {
      if (Character.toUpperCase((char) (text[i] & 0xff)) != prefix[i]) {
        return false;
      }
    }
    return true;
  }

  private Transaction<MysqlGtid> complete(Transaction.Ending ending) {
    Transaction<MysqlGtid> done = completeGroup(openGtid, ending);
    state = State.IDLE;
    openGtid = null;
    openAnonymous = false;
    return done;
  }

  @Override
  protected String where() {
    String txn = openAnonymous ? "an anonymous transaction" : "transaction " + openGtid;
    switch (state) {
      case IDLE:
        return "between transactions (no GTID event before it)";
      case AFTER_GTID:
        return "right after the GTID event of " + txn + " that starts at " + lastBoundary();
      case BEFORE_STATEMENT:
        return "where the statement of " + txn + " that starts at " + lastBoundary() + " must come";
      default:
        return "inside " + txn + " that starts at " + lastBoundary();
    }
  }
}
