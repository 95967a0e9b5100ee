package org.binlogrelay.e2e.servers.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.binlogrelay.e2e.servers.ServerException;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The local installations themselves, without starting a server: each series of {@link
 * ServerVersion#local()} is found where the provisioning script puts it and reports its own series;
 * a root that is missing or incomplete fails with a message naming {@code
 * scripts/provision-test-servers.sh}.
 */
class LocalInstallationIT {

  @Test
  void eachLocalSeriesIsInstalledAndReportsItsSeries() {
    for (ServerVersion version : ServerVersion.local()) {
      LocalInstallation installation = LocalInstallation.of(version);
      assertThat(installation.flavor()).isEqualTo(version.flavor());
      assertThat(version.matches(installation.reportedVersion()))
          .as("%s reports %s", installation, installation.reportedVersion())
          .isTrue();
    }
  }

  @Test
  void theTwoMariadbSeriesLiveApart() {
    LocalInstallation older = LocalInstallation.of(ServerVersion.MARIADB_10_11);
    LocalInstallation newer = LocalInstallation.of(ServerVersion.MARIADB_11_8);
    assertThat(newer.runBase())
        .isNotEqualTo(older.runBase())
        .endsWith(Path.of("mariadb-sid-root", "data", "binlog-relay-e2e"));
    assertThat(newer.serverPath(newer.runBase().resolve("x")))
        .isEqualTo("/data/binlog-relay-e2e/x");
    assertThat(newer.serverCommand(List.of("--port=1")))
        .contains("mariadbd", "--port=1")
        .first()
        .asString()
        .endsWith("chroot");
  }

  @Test
  void aMissingRootFailsWithTheProvisioningHint(@TempDir Path cache) throws Exception {
    assertThatThrownBy(
            () -> ChrootRoot.find(cache, "mariadb-sid-root", "usr/sbin/mariadbd", "MariaDB 11.8"))
        .isInstanceOf(ServerException.class)
        .hasMessageContaining("MariaDB 11.8 is not installed")
        .hasMessageContaining("mariadb-sid-root/.binlog-relay-provisioned")
        .hasMessageContaining("provision-test-servers.sh");

    // A root the script did not finish (no marker) is no installation either.
    Files.createDirectories(cache.resolve("mariadb-sid-root/usr/sbin"));
    Files.createFile(cache.resolve("mariadb-sid-root/usr/sbin/mariadbd"))
        .toFile()
        .setExecutable(true);
    assertThatThrownBy(
            () -> ChrootRoot.find(cache, "mariadb-sid-root", "usr/sbin/mariadbd", "MariaDB 11.8"))
        .isInstanceOf(ServerException.class)
        .hasMessageContaining("provision-test-servers.sh");
  }

  @Test
  void aSeriesNotInstalledLocallyIsRefusedWithTheDockerHint() {
    assertThatThrownBy(() -> LocalInstallation.of(ServerVersion.MYSQL_8_4))
        .isInstanceOf(ServerException.class)
        .hasMessageContaining(
            "The local backend has no MySQL 8.4: it has MySQL 9.7, MariaDB 10.11, MariaDB 11.8")
        .hasMessageContaining("-Dservers=docker");
  }
}
