package org.binlogrelay.server.downstream.account;

import java.util.Locale;

/**
 * The global privileges the relay checks, named as in MySQL's {@code GRANT}. Everything else a
 * relay answers (variables, {@code SELECT 1}) needs no privilege, as on MySQL.
 */
public enum Privilege {
  /** COM_REGISTER_SLAVE, COM_BINLOG_DUMP[_GTID], and on MySQL SHOW REPLICAS. */
  REPLICATION_SLAVE("REPLICATION SLAVE"),
  /**
   * SHOW BINARY LOGS, SHOW BINARY LOG STATUS / SHOW MASTER STATUS (MariaDB calls it BINLOG
   * MONITOR).
   */
  REPLICATION_CLIENT("REPLICATION CLIENT"),
  /**
   * MariaDB only: SHOW SLAVE HOSTS / SHOW REPLICA HOSTS, which REPLICATION SLAVE does not allow
   * there.
   */
  REPLICATION_MASTER_ADMIN("REPLICATION MASTER ADMIN"),
  /**
   * The relay's own: the statements that read table schemas ({@code SHOW CREATE TABLE}, {@code SHOW
   * FULL TABLES}, {@code information_schema} reads), which the relay forwards to its schema source
   * ({@code --schema-source}). Named as MySQL names its dynamic privileges.
   */
  SCHEMA_READ("SCHEMA_READ");

  private final String sqlName;

  Privilege(String sqlName) {
    this.sqlName = sqlName;
  }

  /** The name as written in GRANT and in MySQL's error messages, e.g. {@code REPLICATION SLAVE}. */
  public String sqlName() {
    return sqlName;
  }

  /**
   * Parses {@code REPLICATION SLAVE}, {@code REPLICATION_SLAVE} or {@code replication-slave} (any
   * case).
   */
  public static Privilege parse(String text) {
    String normal = text.trim().toUpperCase(Locale.ROOT).replace('_', ' ').replace('-', ' ');
    for (Privilege p : values()) {
      if (p.sqlName.replace('_', ' ').equals(normal)) {
        return p;
      }
    }
    throw new IllegalArgumentException(
        "unknown privilege '"
            + text
            + "'; known: REPLICATION_SLAVE, REPLICATION_CLIENT,"
            + " REPLICATION_MASTER_ADMIN, SCHEMA_READ");
  }
}
