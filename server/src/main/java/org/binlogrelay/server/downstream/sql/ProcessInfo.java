package org.binlogrelay.server.downstream.sql;

import java.util.Objects;

/**
 * One connection of the relay as {@code SHOW PROCESSLIST} and {@code
 * information_schema.PROCESSLIST} list it. Immutable.
 *
 * @param id the connection id ({@code CONNECTION_ID()}, what {@code KILL} takes)
 * @param user the user it logged in as
 * @param host {@code address:port} it connects from
 * @param database its current database, null if none
 * @param activity what it does
 * @param seconds how long it has been doing it
 * @param info the statement it runs, null when idle or dumping
 * @param millis the same time in milliseconds (MariaDB's TIME_MS)
 * @param gtidDump whether its dump came as COM_BINLOG_DUMP_GTID (MySQL's Command {@code Binlog Dump
 *     GTID})
 */
public record ProcessInfo(
    long id,
    String user,
    String host,
    String database,
    Activity activity,
    long seconds,
    String info,
    long millis,
    boolean gtidDump) {

  /** What a connection does; the dialect words the Command and State columns. */
  public enum Activity {
    /** Waiting for a statement (Command Sleep). */
    SLEEP,
    /** Running a statement (Command Query). */
    QUERY,
    /** Serving a dump by file and position (Command Binlog Dump) that is looking for its start. */
    DUMP_STARTING,
    /** Serving a dump that is sending events. */
    DUMP_SENDING,
    /** Serving a dump that has sent everything stored and waits for more. */
    DUMP_WAITING,
    /** Serving a dump paused through the admin API. */
    DUMP_PAUSED
  }

  public ProcessInfo {
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(activity, "activity");
  }

  /** Whether the connection serves a dump. */
  public boolean dumping() {
    return activity.ordinal() >= Activity.DUMP_STARTING.ordinal();
  }
}
