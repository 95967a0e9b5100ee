package org.binlogrelay.server.downstream.sql;

import java.time.Clock;
import java.util.Objects;

/**
 * What every statement is evaluated against: the server's dialect, identity, variables and binlogs, the clock,
 * and the column shapes of its results. Immutable; thread-safe (the binlog listing is).
 */
record SqlEnvironment(SqlFlavor dialect, ServerIdentity identity, ServerVariables variables, BinlogListing binlogs,
    Clock clock, Columns columns) {
  SqlEnvironment {
    Objects.requireNonNull(dialect, "dialect");
    Objects.requireNonNull(identity, "identity");
    Objects.requireNonNull(variables, "variables");
    Objects.requireNonNull(binlogs, "binlogs");
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(columns, "columns");
  }
}
