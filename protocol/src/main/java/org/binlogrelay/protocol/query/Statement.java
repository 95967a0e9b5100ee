package org.binlogrelay.protocol.query;

import java.util.List;

/**
 * A parsed statement of the small language a binlog server answers: what MySQL and MariaDB replicas,
 * {@code mysqlbinlog}, binlog client libraries and connection pools send before and around a binlog dump.
 * Anything else is a {@link SqlSyntaxError}. Immutable.
 */
public sealed interface Statement {

  /** {@code SELECT item, ... [FROM DUAL] [LIMIT n]}; {@code limit} is -1 when absent. */
  record Select(List<SelectItem> items, long limit) implements Statement {
    public Select {
      items = List.copyOf(items);
    }
  }

  /** {@code SHOW [GLOBAL|SESSION] VARIABLES [LIKE '...' | WHERE Variable_name = '...']}. */
  record ShowVariables(VariableScope scope, VariableFilter filter) implements Statement {}

  /** {@code SET assignment, ...}. */
  record Set(List<Assignment> assignments) implements Statement {
    public Set {
      assignments = List.copyOf(assignments);
    }
  }

  /**
   * {@code SHOW BINARY LOGS} / {@code SHOW MASTER LOGS}. {@code spelling} is the words after SHOW in upper case
   * with single spaces ("MASTER LOGS"), {@code at} where they start in the statement: servers differ in which
   * spellings they still accept (MySQL 8.4 dropped the MASTER and SLAVE ones) and quote the text from there.
   */
  record ShowBinaryLogs(String spelling, int at) implements Statement {}

  /**
   * {@code SHOW BINARY LOG STATUS} / {@code SHOW MASTER STATUS} / {@code SHOW BINLOG STATUS}; see
   * {@link ShowBinaryLogs}.
   */
  record ShowBinaryLogStatus(String spelling, int at) implements Statement {}

  /** {@code SHOW REPLICAS} / {@code SHOW SLAVE HOSTS} / {@code SHOW REPLICA HOSTS}; see {@link ShowBinaryLogs}. */
  record ShowReplicas(String spelling, int at) implements Statement {}

  /** {@code SHOW WARNINGS} (always empty here; connection pools ask after each statement). */
  record ShowWarnings() implements Statement {}

  /**
   * A statement that reads table schemas ({@code SHOW CREATE TABLE}, {@code SHOW FULL TABLES}, a {@code SELECT} of
   * {@code information_schema.COLUMNS}, ...), which the relay forwards to its schema source.
   */
  record Metadata(MetadataStatement statement) implements Statement {}
}
