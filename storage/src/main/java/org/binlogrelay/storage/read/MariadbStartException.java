package org.binlogrelay.storage.read;

import java.util.Objects;
import org.binlogrelay.protocol.gtid.MariadbGtid;
import org.binlogrelay.storage.StoreException;

/**
 * A MariaDB replica's GTID position cannot be served, found while streaming rather than at connect
 * time (MariaDB's {@code send_event_to_slave} checks, which the server reports as error 1236; see
 * {@link Kind} for the conditions). The message is MariaDB's text for the case.
 */
public final class MariadbStartException extends StoreException {
  private static final long serialVersionUID = 1L;

  /** Which of MariaDB's errors. */
  public enum Kind {
    /**
     * ER_GTID_POSITION_NOT_FOUND_IN_BINLOG (1945, sent as 1236): the first GTID of a domain the
     * binlog did not have at connect time arrived, and the binlog state still lacks the replica's
     * GTID for that domain and server.
     */
    NOT_IN_BINLOG,
    /**
     * ER_GTID_POSITION_NOT_FOUND_IN_BINLOG2 (1955, sent as 1236): as above, and the binlog has
     * higher ones.
     */
    DIVERGED,
    /**
     * ER_GTID_START_FROM_BINLOG_HOLE (1951, sent as 1236): in GTID strict mode, the binlog has the
     * replica's domain and server with a lower and a higher sequence number but not the replica's
     * own.
     */
    HOLE
  }

  private final Kind kind;
  private final MariadbGtid gtid;

  public MariadbStartException(Kind kind, MariadbGtid gtid, String message) {
    super(message);
    this.kind = Objects.requireNonNull(kind, "kind");
    this.gtid = Objects.requireNonNull(gtid, "gtid");
  }

  /**
   * The exception for {@code kind} and {@code gtid}, with MariaDB 10.11's message ({@code
   * sql_repl.cc}).
   */
  public static MariadbStartException of(Kind kind, MariadbGtid gtid) {
    return new MariadbStartException(kind, gtid, message(kind, gtid));
  }

  /**
   * MariaDB's text for the error, as {@code mysql_binlog_send} formats it before sending it as
   * 1236.
   */
  public static String message(Kind kind, MariadbGtid gtid) {
    switch (kind) {
      case NOT_IN_BINLOG:
        return "Error: connecting slave requested to start from GTID "
            + gtid
            + ", which is not in the master's"
            + " binlog";
      case DIVERGED:
        return "Error: connecting slave requested to start from GTID "
            + gtid
            + ", which is not in the master's"
            + " binlog. Since the master's binlog contains GTIDs with higher sequence numbers, it probably means that"
            + " the slave has diverged due to executing extra erroneous transactions";
      default:
        return "The binlog on the master is missing the GTID "
            + gtid
            + " requested by the slave (even though both"
            + " a prior and a subsequent sequence number does exist), and GTID strict mode is enabled";
    }
  }

  public Kind kind() {
    return kind;
  }

  /** The replica's GTID that cannot be found. */
  public MariadbGtid gtid() {
    return gtid;
  }
}
