package org.binlogrelay.e2e.servers;

/**
 * The two server families the relay speaks to. Everything that differs between them in the harness (users, GTID
 * variables, replication statements) sits behind {@link FlavorDialect}, one class per flavour, reached through
 * {@link #dialect()}.
 */
public enum ServerFlavor {
    MYSQL("MySQL", new MysqlDialect()),
    MARIADB("MariaDB", new MariadbDialect());

    private final String displayName;
    private final FlavorDialect dialect;

    ServerFlavor(String displayName, FlavorDialect dialect) {
        this.displayName = displayName;
        this.dialect = dialect;
    }

    public FlavorDialect dialect() {
        return dialect;
    }

    public String displayName() {
        return displayName;
    }
}
