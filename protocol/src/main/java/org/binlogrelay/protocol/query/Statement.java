package org.binlogrelay.protocol.query;

import java.util.List;
import java.util.Objects;

/**
 * A parsed statement of the language a binlog server answers: what MySQL and MariaDB replicas,
 * {@code mysqlbinlog}, binlog client libraries, JDBC connectors, monitoring agents and DBA tools
 * send before and around a binlog dump. A statement of MySQL's grammar that the server does not
 * execute is {@link Unsupported}; text that is not SQL at all is a {@link SqlSyntaxError}.
 * Immutable.
 */
public sealed interface Statement {

  /**
   * {@code SELECT item, ... [FROM table] [WHERE condition] [ORDER BY ...] [LIMIT [offset,] n]};
   * {@code from} null without a table (or {@code FROM DUAL}), {@code where} null without a
   * condition, {@code limit} -1 when absent.
   */
  record Select(
      List<SelectItem> items,
      TableName from,
      Expression where,
      List<Ordering> orderBy,
      long limit,
      long offset)
      implements Statement {
    public Select {
      items = List.copyOf(items);
      orderBy = List.copyOf(orderBy);
    }

    /** A select list without a table. */
    public Select(List<SelectItem> items, long limit) {
      this(items, null, null, List.of(), limit, 0);
    }
  }

  /**
   * One {@code ORDER BY} key: an expression (a column or a 1-based column number) and its
   * direction.
   */
  record Ordering(Expression key, boolean descending) {}

  /** {@code SHOW [GLOBAL|SESSION] VARIABLES [LIKE '...' | WHERE ...]}. */
  record ShowVariables(VariableScope scope, ShowFilter filter) implements Statement {}

  /** {@code SHOW [GLOBAL|SESSION] STATUS [LIKE '...' | WHERE ...]}. */
  record ShowStatus(VariableScope scope, ShowFilter filter) implements Statement {}

  /** {@code SET assignment, ...}. */
  record Set(List<Assignment> assignments) implements Statement {
    public Set {
      assignments = List.copyOf(assignments);
    }
  }

  /**
   * {@code BEGIN [WORK]} or {@code START TRANSACTION [READ ONLY | READ WRITE | WITH CONSISTENT
   * SNAPSHOT], ...}.
   *
   * @param readOnly whether {@code READ ONLY} was asked for
   */
  record Begin(boolean readOnly) implements Statement {}

  /**
   * {@code COMMIT} or {@code ROLLBACK}, {@code [WORK] [AND [NO] CHAIN] [[NO] RELEASE]}.
   *
   * @param commit COMMIT rather than ROLLBACK
   * @param chain {@code AND CHAIN}: a new transaction starts at once
   * @param release {@code RELEASE}: the server closes the connection after answering
   */
  record EndTransaction(boolean commit, boolean chain, boolean release) implements Statement {}

  /**
   * {@code SET [GLOBAL|SESSION] TRANSACTION characteristic, ...}. Without a scope it applies to the
   * next transaction only.
   *
   * @param isolation {@code READ-UNCOMMITTED}, {@code READ-COMMITTED}, {@code REPEATABLE-READ} or
   *     {@code SERIALIZABLE} (the variable's spelling); null if not given
   * @param readOnly {@code READ ONLY} (true) or {@code READ WRITE} (false); null if not given
   */
  record SetTransaction(VariableScope scope, String isolation, Boolean readOnly)
      implements Statement {}

  /**
   * {@code SHOW BINARY LOGS} / {@code SHOW MASTER LOGS}. {@code spelling} is the words after SHOW
   * in upper case with single spaces ("MASTER LOGS"), {@code at} where they start in the statement:
   * servers differ in which spellings they still accept (MySQL 8.4 dropped the MASTER and SLAVE
   * ones) and quote the text from there.
   */
  record ShowBinaryLogs(String spelling, int at) implements Statement {}

  /**
   * {@code SHOW BINARY LOG STATUS} / {@code SHOW MASTER STATUS} / {@code SHOW BINLOG STATUS}; see
   * {@link ShowBinaryLogs}.
   */
  record ShowBinaryLogStatus(String spelling, int at) implements Statement {}

  /**
   * {@code SHOW REPLICAS} / {@code SHOW SLAVE HOSTS} / {@code SHOW REPLICA HOSTS}; see {@link
   * ShowBinaryLogs}.
   */
  record ShowReplicas(String spelling, int at) implements Statement {}

  /**
   * {@code SHOW REPLICA STATUS [FOR CHANNEL 'c']}, {@code SHOW SLAVE ['name'] STATUS}, MariaDB's
   * {@code SHOW ALL SLAVES STATUS} / {@code SHOW ALL REPLICAS STATUS}; see {@link ShowBinaryLogs}
   * for {@code spelling} ("REPLICA STATUS", "SLAVE STATUS", "ALL SLAVES STATUS", "ALL REPLICAS
   * STATUS").
   *
   * @param all the MariaDB form for every connection, which has more columns
   * @param channel the channel (MySQL) or connection name (MariaDB) asked for, null if none
   */
  record ShowReplicaStatus(String spelling, int at, boolean all, String channel)
      implements Statement {}

  /** {@code SHOW [FULL] PROCESSLIST}. */
  record ShowProcessList(boolean full) implements Statement {}

  /** {@code KILL [CONNECTION | QUERY] id}; {@code query} for KILL QUERY. */
  record Kill(boolean query, Expression id) implements Statement {}

  /**
   * {@code SHOW BINLOG EVENTS [IN 'file'] [FROM pos] [LIMIT [offset,] count]}.
   *
   * @param file null for the first stored file
   * @param from the position to start at, 4 (the first event) when not given
   * @param count -1 for no limit
   */
  record ShowBinlogEvents(String file, long from, long offset, long count) implements Statement {}

  /** {@code SHOW WARNINGS} (always empty here; connection pools ask after each statement). */
  record ShowWarnings() implements Statement {}

  /** {@code USE database}. */
  record Use(String database) implements Statement {}

  /** {@code SHOW DATABASES} / {@code SHOW SCHEMAS [LIKE | WHERE]}. */
  record ShowDatabases(ShowFilter filter) implements Statement {}

  /**
   * {@code SHOW [FULL] TABLES [FROM | IN db] [LIKE | WHERE]}; {@code database} null for the current
   * one.
   */
  record ShowTables(boolean full, String database, ShowFilter filter) implements Statement {}

  /**
   * {@code SHOW [FULL] COLUMNS | FIELDS FROM table [FROM db] [LIKE | WHERE]}; a {@code FROM db} is
   * folded into the table's schema.
   */
  record ShowColumns(boolean full, TableName table, ShowFilter filter) implements Statement {}

  /** {@code SHOW CREATE TABLE table}. */
  record ShowCreateTable(TableName table) implements Statement {}

  /**
   * A statement of MySQL's or MariaDB's grammar that this server does not execute, such as {@code
   * CREATE TABLE} or {@code SHOW ENGINE INNODB STATUS}; {@code what} names it as the server's
   * ER_NOT_SUPPORTED_YET does ("CREATE TABLE"). Only its first words are checked.
   */
  record Unsupported(String what) implements Statement {
    public Unsupported {
      Objects.requireNonNull(what, "what");
    }
  }

  /**
   * A statement that reads table schemas ({@code SHOW CREATE TABLE}, {@code SHOW FULL TABLES}, a
   * {@code SELECT} of {@code information_schema.COLUMNS}, ...), which the relay forwards to its
   * schema source.
   */
  record Metadata(MetadataStatement statement) implements Statement {}
}
