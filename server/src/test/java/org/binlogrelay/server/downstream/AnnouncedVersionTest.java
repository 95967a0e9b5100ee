package org.binlogrelay.server.downstream;

import static org.assertj.core.api.Assertions.assertThat;

import org.binlogrelay.server.downstream.sql.MariadbSqlFlavor;
import org.binlogrelay.server.downstream.sql.MysqlSqlFlavor;
import org.junit.jupiter.api.Test;

/**
 * The announced version: configured, else the upstream's version number, else the flavour's
 * default.
 */
class AnnouncedVersionTest {
  private static final MysqlSqlFlavor MYSQL = MysqlSqlFlavor.INSTANCE;
  private static final MariadbSqlFlavor MARIADB = MariadbSqlFlavor.INSTANCE;

  @Test
  void derivedFromTheUpstreamsVersionNumber() {
    assertThat(AnnouncedVersion.choose(null, "9.7.4", MYSQL)).isEqualTo("9.7.4-binlog-relay");
    assertThat(AnnouncedVersion.choose(null, "9.7.4-2", MYSQL))
        .as("as the e2e MySQL build says")
        .isEqualTo("9.7.4-binlog-relay");
    assertThat(AnnouncedVersion.choose(null, "8.0.36-28", MYSQL)).isEqualTo("8.0.36-binlog-relay");
    assertThat(AnnouncedVersion.choose(null, "8.4.3-log", MYSQL)).isEqualTo("8.4.3-binlog-relay");
    assertThat(AnnouncedVersion.choose(null, "10.11.6-MariaDB-0+deb12u1-log", MARIADB))
        .isEqualTo("10.11.6-MariaDB-binlog-relay");
    assertThat(AnnouncedVersion.choose(null, "5.5.5-10.11.6-MariaDB-0+deb12u1-log", MARIADB))
        .as("MariaDB 10's greeting prefix")
        .isEqualTo("10.11.6-MariaDB-binlog-relay");
    assertThat(AnnouncedVersion.choose(null, "11.4.2-MariaDB", MARIADB))
        .isEqualTo("11.4.2-MariaDB-binlog-relay");
    assertThat(AnnouncedVersion.choose(null, "5.5.5-log", MYSQL))
        .as("a MySQL 5.5.5 is not a prefix")
        .isEqualTo("5.5.5-binlog-relay");
  }

  @Test
  void greetingOfAMariadb10RelayCarriesThe555PrefixAsTheRealServersDo() {
    assertThat(AnnouncedVersion.inGreeting("10.11.6-MariaDB-binlog-relay", MARIADB))
        .isEqualTo("5.5.5-10.11.6-MariaDB-binlog-relay");
    assertThat(AnnouncedVersion.inGreeting("10.11.0-MariaDB-binlog-relay", MARIADB))
        .isEqualTo("5.5.5-10.11.0-MariaDB-binlog-relay");
    assertThat(AnnouncedVersion.inGreeting("10.6.21-MariaDB-log", MARIADB))
        .isEqualTo("5.5.5-10.6.21-MariaDB-log");
    assertThat(AnnouncedVersion.inGreeting("5.5.5-10.11.6-MariaDB", MARIADB))
        .as("not twice")
        .isEqualTo("5.5.5-10.11.6-MariaDB");
    assertThat(AnnouncedVersion.inGreeting("11.8.9-MariaDB-binlog-relay", MARIADB))
        .as("MariaDB 11.0 dropped the prefix")
        .isEqualTo("11.8.9-MariaDB-binlog-relay");
    assertThat(AnnouncedVersion.inGreeting("11.0.2-MariaDB", MARIADB)).isEqualTo("11.0.2-MariaDB");
    assertThat(AnnouncedVersion.inGreeting("5.5.60-MariaDB", MARIADB))
        .as("before 10: no prefix either")
        .isEqualTo("5.5.60-MariaDB");
    assertThat(AnnouncedVersion.inGreeting("custom", MARIADB)).isEqualTo("custom");
    assertThat(AnnouncedVersion.inGreeting("10.0.0-custom", MYSQL))
        .as("MySQL never")
        .isEqualTo("10.0.0-custom");
    assertThat(AnnouncedVersion.inGreeting("9.7.4-binlog-relay", MYSQL))
        .isEqualTo("9.7.4-binlog-relay");
  }

  @Test
  void configuredWinsAndUnknownFallsBack() {
    assertThat(AnnouncedVersion.choose("8.0.40-custom", "9.7.4", MYSQL)).isEqualTo("8.0.40-custom");
    assertThat(AnnouncedVersion.choose(" ", "9.7.4", MYSQL)).isEqualTo("9.7.4-binlog-relay");
    assertThat(AnnouncedVersion.choose(null, null, MYSQL)).isEqualTo("8.4.0-binlog-relay");
    assertThat(AnnouncedVersion.choose(null, "garbage", MARIADB))
        .isEqualTo("10.11.0-MariaDB-binlog-relay");
    assertThat(AnnouncedVersion.choose(null, "", MARIADB))
        .isEqualTo("10.11.0-MariaDB-binlog-relay");
    assertThat(ReplicaServerConfig.builder(MYSQL).build().identity().version())
        .isEqualTo("8.4.0-binlog-relay");
    assertThat(ReplicaServerConfig.builder(MARIADB).build().identity().version())
        .isEqualTo("10.11.0-MariaDB-binlog-relay");
  }
}
