package org.binlogrelay.server.downstream.sql;

import java.util.Objects;
import org.binlogrelay.storage.Time;

/**
 * What every statement is evaluated against: the server's dialect, identity, variables and binlogs,
 * the clock, and the column shapes of its results. Immutable; thread-safe (the binlog listing is).
 */
record SqlEnvironment(
    SqlFlavor dialect,
    ServerIdentity identity,
    ServerVariables variables,
    BinlogListing binlogs,
    Time time,
    Columns columns) {
  SqlEnvironment {
    Objects.requireNonNull(dialect, "dialect");
    Objects.requireNonNull(identity, "identity");
    Objects.requireNonNull(variables, "variables");
    Objects.requireNonNull(binlogs, "binlogs");
    Objects.requireNonNull(time, "time");
    Objects.requireNonNull(columns, "columns");
  }
}
