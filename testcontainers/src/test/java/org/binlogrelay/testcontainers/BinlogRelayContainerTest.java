package org.binlogrelay.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The container's configuration, without starting it (no Docker engine needed). */
class BinlogRelayContainerTest {

  private static BinlogRelayContainer relay() {
    return new BinlogRelayContainer("binlog-relay:test");
  }

  @Test
  void primaryAndAccountsBecomeTheRelaysVariables() {
    BinlogRelayContainer relay =
        relay()
            .withPrimary("db1.example", 3306)
            .withPrimaryCredentials("repl@x", "pw")
            .withServerId(42)
            .withReplicaAccount("replica", "replica-pass")
            .withRelayOption("--sync-binlog", "2s");
    relay.configure();
    assertThat(relay.getEnvMap())
        .containsEntry("BINLOG_RELAY_SOURCE", "mysql://repl%40x@db1.example:3306")
        .containsEntry("BINLOG_RELAY_PRIMARY_PASSWORD_FILE", "/etc/binlog-relay/primary-password")
        .containsEntry("BINLOG_RELAY_SERVER_ID", "42")
        .containsEntry("BINLOG_RELAY_ACCOUNTS_FILE", "/etc/binlog-relay/accounts")
        .containsEntry("BINLOG_RELAY_ADMIN_TOKEN_FILE", "/etc/binlog-relay/admin-token")
        .containsEntry("BINLOG_RELAY_SYNC_BINLOG", "2s");
    assertThat(relay.getEnvMap().values()).noneMatch(v -> v.contains("pw"));
    assertThat(relay.getExposedPorts())
        .containsExactly(BinlogRelayContainer.REPLICA_PORT, BinlogRelayContainer.ADMIN_PORT);
    assertThat(relay.getAdminToken()).hasSize(48).isNotEqualTo(relay().getAdminToken());
  }

  @Test
  void ipv6PrimaryIsBracketed() {
    BinlogRelayContainer relay =
        relay().withPrimary("fd00::1", 3310).withPrimaryCredentials("repl", "pw");
    relay.configure();
    assertThat(relay.getEnvMap())
        .containsEntry("BINLOG_RELAY_SOURCE", "mysql://repl@[fd00::1]:3310");
  }

  @Test
  void missingPrimaryOrCredentialsSayWhatToCall() {
    assertThatThrownBy(() -> relay().withPrimaryCredentials("repl", "pw").configure())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("withPrimary(");
    assertThatThrownBy(() -> relay().withPrimary("db1", 3306).configure())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("withPrimaryCredentials(");
  }

  @Test
  void badValuesAreRefusedWhereTheyAreGiven() {
    assertThatThrownBy(() -> relay().withServerId(0)).hasMessageContaining("outside 1..4294967295");
    assertThatThrownBy(() -> relay().withPrimary("db1", 70000))
        .hasMessageContaining("outside 1..65535");
    assertThatThrownBy(() -> relay().withRelayOption("sync binlog", "1"))
        .hasMessageContaining("not a relay option name");
    assertThatThrownBy(() -> relay().withAccountsLine("a@% - *X\nb@% - *Y"))
        .hasMessageContaining("one line");
    assertThatThrownBy(() -> ReplicaAccount.of("re plica", "pw"))
        .hasMessageContaining("without spaces");
  }
}
