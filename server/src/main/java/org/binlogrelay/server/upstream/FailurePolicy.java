package org.binlogrelay.server.upstream;

import java.io.IOException;
import java.util.Set;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.storage.ContinuityException;
import org.binlogrelay.storage.StoreException;

/**
 * Sorts what ended a connection by what reconnecting can do about it ({@link FailureClass}):
 *
 * <ul>
 *   <li>{@link FailureClass#TRANSIENT}, reconnect for as long as it takes: network errors (refused,
 *       reset, unreachable, TLS trouble other than a refused certificate), EOF, a dead or timed-out
 *       connection, and the server errors of a busy, restarting or killing primary ({@link
 *       #TRANSIENT_SERVER_ERRORS}: 1040 too many connections, 1053 shutdown in progress, 1317 /
 *       1927 / 3169 killed, ...). A primary that is down for an hour is back one backoff delay
 *       after it returns;
 *   <li>{@link FailureClass#DETERMINISTIC}, reconnect a few times, then stop: the same cause gives
 *       the same failure on the next connection until someone fixes it. Every other server error
 *       (1045 access denied, 1044 / 1227 missing privileges, 1129 host blocked, ...), a continuity
 *       error ({@link ContinuityException}: the primary's binlog does not continue the stored one
 *       at some event), a malformed or corrupt packet ({@link ProtocolException}: nothing of it was
 *       stored). {@link ReconnectSchedule} stops after {@link #MAX_IDENTICAL_FAILURES} identical
 *       ones without progress;
 *   <li>{@link FailureClass#FATAL}, stop at once: error 1236 (the binlog the relay needs is purged,
 *       or the position is impossible) and 1381 (binary logging is off); a {@link
 *       FatalUpstreamException} (same server_id as the primary, another flavour than the store, a
 *       failed store, a primary whose executed GTIDs lack some of the store's, a primary without
 *       TLS where the mode requires it, a refused certificate); a store that failed or found
 *       corruption ({@link StoreException} other than continuity); anything unexpected (a bug:
 *       stopping is safer than looping).
 * </ul>
 *
 * Stateless.
 */
final class FailurePolicy {
  /**
   * Identical {@link FailureClass#DETERMINISTIC} failures in a row, without progress in between,
   * after which the replicator stops in {@link UpstreamStatus#FAILED}; see {@link
   * ReconnectSchedule} for "identical" and "progress".
   */
  static final int MAX_IDENTICAL_FAILURES = 5;

  /**
   * Server errors that say the primary is busy, restarting, or ended this one connection:
   * ER_CON_COUNT_ERROR 1040, ER_OUT_OF_RESOURCES 1041, ER_BAD_HOST_ERROR 1042 (a DNS hiccup),
   * ER_SERVER_SHUTDOWN 1053, ER_NORMAL_SHUTDOWN 1077, ER_ABORTING_CONNECTION 1152,
   * ER_NET_READ_ERROR 1158, ER_NET_READ_INTERRUPTED 1159, ER_NET_ERROR_ON_WRITE 1160,
   * ER_NET_WRITE_INTERRUPTED 1161, ER_NEW_ABORTING_CONNECTION 1184, ER_TOO_MANY_USER_CONNECTIONS
   * 1203, ER_LOCK_WAIT_TIMEOUT 1205, ER_LOCK_DEADLOCK 1213, ER_USER_LIMIT_REACHED 1226 (an hourly
   * limit), ER_QUERY_INTERRUPTED 1317, ER_CONNECTION_KILLED 1927 (MariaDB), ER_SERVER_OFFLINE_MODE
   * 3032, ER_SESSION_WAS_KILLED 3169, ER_CLIENT_INTERACTION_TIMEOUT 4031 (MySQL).
   */
  static final Set<Integer> TRANSIENT_SERVER_ERRORS =
      Set.of(
          1040, 1041, 1042, 1053, 1077, 1152, 1158, 1159, 1160, 1161, 1184, 1203, 1205, 1213, 1226,
          1317, 1927, 3032, 3169, 4031);

  /** What reconnecting can do about a failure. */
  enum FailureClass {
    /**
     * It belongs to one connection or one moment: reconnect, with backoff, for as long as it takes.
     */
    TRANSIENT,
    /**
     * It comes back on every connection until someone fixes its cause: a few reconnections, then
     * FAILED.
     */
    DETERMINISTIC,
    /** Reconnecting cannot cure it: FAILED at once. */
    FATAL
  }

  private FailurePolicy() {}

  /** The class of {@code failure}. */
  static FailureClass classify(Throwable failure) {
    if (failure instanceof PrimaryErrorException e) {
      if (e.code() == PrimaryErrorException.FATAL_ERROR_READING_BINLOG
          || e.code() == PrimaryErrorException.NO_BINARY_LOGGING) {
        return FailureClass.FATAL;
      }
      return TRANSIENT_SERVER_ERRORS.contains(e.code())
          ? FailureClass.TRANSIENT
          : FailureClass.DETERMINISTIC;
    }
    if (failure instanceof ContinuityException || failure instanceof ProtocolException) {
      return FailureClass.DETERMINISTIC;
    }
    if (failure instanceof FatalUpstreamException || failure instanceof StoreException) {
      return FailureClass.FATAL;
    }
    return failure instanceof IOException ? FailureClass.TRANSIENT : FailureClass.FATAL;
  }

  /**
   * Whether to reconnect after {@code failure}.
   *
   * @param failure what ended the connection
   * @param identicalFailures connections in a row (this one included) that ended in this same
   *     failure without progress in between (see {@link ReconnectSchedule})
   * @return true to reconnect, false to stop in {@link UpstreamStatus#FAILED}
   */
  static boolean retry(Throwable failure, int identicalFailures) {
    return switch (classify(failure)) {
      case TRANSIENT -> true;
      case DETERMINISTIC -> identicalFailures < MAX_IDENTICAL_FAILURES;
      case FATAL -> false;
    };
  }

  /**
   * Whether {@code failure} is one of the failures this policy knows (a server error, a network,
   * protocol, continuity or store failure); false for a bug, whose stack trace is worth logging.
   */
  static boolean expected(Throwable failure) {
    return failure instanceof IOException
        || failure instanceof ProtocolException
        || failure instanceof FatalUpstreamException
        || failure instanceof StoreException;
  }

  /** What an operator does about a failure that stopped the replicator, for its ERROR line. */
  static String advice(Throwable failure) {
    if (failure instanceof PrimaryErrorException e) {
      switch (e.code()) {
        case 1045:
          return "check the relay's user and password (primary-user, primary-password-file) against the account"
              + " on the primary (SELECT user, host, plugin FROM mysql.user)";
        case 1044:
        case 1142:
        case 1227:
          return "grant the relay's user REPLICATION SLAVE and REPLICATION CLIENT on the primary";
        case 1129:
          return "unblock the relay's host on the primary (FLUSH HOSTS, or TRUNCATE"
              + " performance_schema.host_cache) and find what failed its connections";
        case 1130:
          return "create the relay's user for the relay's host on the primary";
        case PrimaryErrorException.FATAL_ERROR_READING_BINLOG:
          return "point the relay at a server that still has what it needs (relayctl source change), or start a"
              + " new store";
        case PrimaryErrorException.NO_BINARY_LOGGING:
          return "enable binary logging on the primary (log_bin)";
        default:
          return "fix what the primary's error " + e.code() + " says";
      }
    }
    if (failure instanceof ContinuityException) {
      return "the primary's binlog does not continue the stored one at the event named (compare the primary's"
          + " file there with mysqlbinlog); a primary whose binlog was reset or rewritten needs a new store"
          + " (another data-dir), a relay that misreads a valid binlog is a bug to report with that event";
    }
    if (failure instanceof ProtocolException) {
      return "the primary sends the same malformed or corrupt data at this point on every connection: check its"
          + " binlog there (mysqlbinlog --verify-binlog-checksum) and the network path";
    }
    return "fix the cause named";
  }
}
