package org.binlogrelay.e2e.servers;

/**
 * The two server families the relay speaks to. Everything that differs between them in the harness
 * (users, GTID variables, replication statements) sits behind {@link HarnessFlavor}, one class per
 * flavour, reached through {@link #dialect()}.
 */
public enum ServerFlavor {
  MYSQL("MySQL", new MysqlHarnessFlavor()),
  MARIADB("MariaDB", new MariadbHarnessFlavor());

  private final String displayName;
  private final HarnessFlavor dialect;

  ServerFlavor(String displayName, HarnessFlavor dialect) {
    this.displayName = displayName;
    this.dialect = dialect;
  }

  public HarnessFlavor dialect() {
    return dialect;
  }

  public String displayName() {
    return displayName;
  }
}
