package org.binlogrelay.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.server.upstream.StartPosition;
import org.binlogrelay.storage.SyncPolicy;
import org.junit.jupiter.api.Test;

class OptionValuesTest {

  @Test
  void durationsAreSecondsAsMysqlTakesThemOrCarryAUnit() {
    assertThat(OptionValues.duration("30")).isEqualTo(Duration.ofSeconds(30));
    assertThat(OptionValues.duration("0.5")).isEqualTo(Duration.ofMillis(500));
    assertThat(OptionValues.duration("250ms")).isEqualTo(Duration.ofMillis(250));
    assertThat(OptionValues.duration("2s")).isEqualTo(Duration.ofSeconds(2));
    assertThat(OptionValues.duration("5m")).isEqualTo(Duration.ofMinutes(5));
    assertThat(OptionValues.duration(" 1H ")).isEqualTo(Duration.ofHours(1));
    assertThatThrownBy(() -> OptionValues.duration("soon"))
        .hasMessageContaining("duration 'soon' not understood");
    assertThatThrownBy(() -> OptionValues.duration("-1s")).hasMessageContaining("'-1s'");
    assertThatThrownBy(() -> OptionValues.duration(""))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void sizesAreBytesOrBinaryUnits() {
    assertThat(OptionValues.byteSize("0")).isZero();
    assertThat(OptionValues.byteSize("1000")).isEqualTo(1000);
    assertThat(OptionValues.byteSize("500M")).isEqualTo(500L << 20);
    assertThat(OptionValues.byteSize("20g")).isEqualTo(20L << 30);
    assertThat(OptionValues.byteSize("1TiB")).isEqualTo(1L << 40);
    assertThat(OptionValues.byteSize("64KB")).isEqualTo(64L << 10);
    assertThatThrownBy(() -> OptionValues.byteSize("lots"))
        .hasMessageContaining("size 'lots' not understood");
    assertThatThrownBy(() -> OptionValues.byteSize("-5M")).hasMessageContaining("'-5M'");
    assertThatThrownBy(() -> OptionValues.byteSize("99999999999T"))
        .hasMessageContaining("'99999999999T'");
  }

  @Test
  void syncPoliciesFollowSyncBinlog() {
    assertThat(OptionValues.syncPolicy("1")).isEqualTo(SyncPolicy.everyTransaction());
    assertThat(OptionValues.syncPolicy("every-transaction"))
        .isEqualTo(SyncPolicy.everyTransaction());
    assertThat(OptionValues.syncPolicy("0")).isEqualTo(SyncPolicy.off());
    assertThat(OptionValues.syncPolicy("OFF")).isEqualTo(SyncPolicy.off());
    assertThat(OptionValues.syncPolicy("100")).isEqualTo(SyncPolicy.everyTransactions(100));
    assertThat(OptionValues.syncPolicy("every-100-transactions"))
        .isEqualTo(SyncPolicy.everyTransactions(100));
    assertThat(OptionValues.syncPolicy("250ms"))
        .isEqualTo(SyncPolicy.every(Duration.ofMillis(250)));
    assertThat(OptionValues.syncPolicy("2s")).isEqualTo(SyncPolicy.every(Duration.ofSeconds(2)));
    assertThat(OptionValues.syncPolicy("every-2s"))
        .isEqualTo(SyncPolicy.every(Duration.ofSeconds(2)));
    assertThatThrownBy(() -> OptionValues.syncPolicy("0ms"))
        .hasMessageContaining("sync policy '0ms'");
    assertThatThrownBy(() -> OptionValues.syncPolicy("sometimes"))
        .hasMessageContaining(
            "sync policy 'sometimes' not understood; use every-transaction (or 1)");
  }

  @Test
  void startPositions() {
    assertThat(OptionValues.startPosition("earliest")).isEqualTo(StartPosition.earliest());
    assertThat(OptionValues.startPosition("CURRENT")).isEqualTo(StartPosition.current());
    assertThat(OptionValues.startPosition("gtid:0-1-100,1-2-5"))
        .isEqualTo(StartPosition.gtids("0-1-100,1-2-5"));
    assertThat(OptionValues.startPosition("gtid:")).isEqualTo(StartPosition.gtids(""));
    assertThat(OptionValues.startPosition("gtid:3E11FA47-71CA-11E1-9E33-C80AA9429562:1-5"))
        .isEqualTo(StartPosition.gtids("3E11FA47-71CA-11E1-9E33-C80AA9429562:1-5"));
    assertThat(OptionValues.startPosition("file:binlog.000042"))
        .isEqualTo(StartPosition.file("binlog.000042", 4));
    assertThat(OptionValues.startPosition("file:binlog.000042:4"))
        .isEqualTo(StartPosition.file("binlog.000042", 4));
    assertThatThrownBy(() -> OptionValues.startPosition("file:binlog.000042:120"))
        .hasMessageContaining("the relay stores whole binlog files");
    assertThatThrownBy(() -> OptionValues.startPosition("latest"))
        .hasMessageContaining(
            "start 'latest' not understood; use earliest, current, gtid:SET or file:NAME");
  }

  @Test
  void flavors() {
    assertThat(OptionValues.flavor("MariaDB")).isEqualTo(GtidFlavor.MARIADB);
    assertThat(OptionValues.flavor("mysql")).isEqualTo(GtidFlavor.MYSQL);
    assertThatThrownBy(() -> OptionValues.flavor("percona"))
        .hasMessage("flavor 'percona' not understood; use mysql" + " or mariadb");
  }

  @Test
  void hostsAndPorts() {
    assertThat(HostPort.parse("db1", 3306)).isEqualTo(new HostPort("db1", 3306));
    assertThat(HostPort.parse("db1.example:3310", 3306))
        .isEqualTo(new HostPort("db1.example", 3310));
    assertThat(HostPort.parse("[::1]:3310", 3306)).isEqualTo(new HostPort("::1", 3310));
    assertThat(HostPort.parse("[fe80::1]", 3306)).isEqualTo(new HostPort("fe80::1", 3306));
    assertThat(new HostPort("::1", 3306)).hasToString("[::1]:3306");
    assertThat(new HostPort("db1", 3306)).hasToString("db1:3306");
    assertThatThrownBy(() -> HostPort.parse("::1:3306", 3306))
        .hasMessageContaining("write an IPv6 address as");
    assertThatThrownBy(() -> HostPort.parse("db1:port", 3306))
        .hasMessageContaining("port 'port' is not a number");
    assertThatThrownBy(() -> HostPort.parse("db1:70000", 3306))
        .hasMessageContaining("outside 1..65535");
    assertThatThrownBy(() -> HostPort.parse(":3306", 3306)).hasMessageContaining("has no host");
    assertThatThrownBy(() -> HostPort.parse("[::1", 3306)).hasMessageContaining("without ']'");
  }
}
