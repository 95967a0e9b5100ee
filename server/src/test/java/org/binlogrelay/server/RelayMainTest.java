package org.binlogrelay.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.binlogrelay.protocol.auth.PasswordHashes;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.server.downstream.sql.MysqlSqlFlavor;
import org.binlogrelay.server.upstream.StartPosition;
import org.binlogrelay.server.upstream.TlsConfig;
import org.binlogrelay.server.upstream.TlsMode;
import org.binlogrelay.server.upstream.UpstreamConfig;
import org.binlogrelay.storage.SyncPolicy;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command line: parsing, the configuration file, exit codes and messages; the relay itself is
 * not started.
 */
class RelayMainTest {
  @TempDir Path dir;

  private final Map<String, String> environment = new HashMap<>();
  private final List<RelayConfig> launched = new ArrayList<>();
  private RelayMain.Launcher launcher =
      config -> {
        launched.add(config);
        return RelayMain.OK;
      };
  private String out;
  private String err;
  private Path accounts;

  @BeforeEach
  void accountsFile() throws IOException {
    accounts = dir.resolve("accounts");
    Files.writeString(
        accounts,
        "# replicas\nrepl@% REPLICATION_SLAVE,REPLICATION_CLIENT "
            + PasswordHashes.nativePassword("repl-pass")
            + "\n");
  }

  private int run(String... args) {
    StringWriter o = new StringWriter();
    StringWriter e = new StringWriter();
    int status =
        RelayMain.execute(args, environment, launcher, new PrintWriter(o), new PrintWriter(e));
    out = o.toString();
    err = e.toString();
    return status;
  }

  private RelayConfig config() {
    assertThat(launched).hasSize(1);
    return launched.get(0);
  }

  /**
   * A usage error: exit 2, one message naming the problem, a pointer to --help, no stack trace,
   * nothing run.
   */
  private void assertUsageError(int status, String message) {
    assertThat(status).as(err).isEqualTo(RelayMain.USAGE);
    assertThat(err)
        .contains("binlog-relay: ")
        .contains(message)
        .contains("Run 'binlog-relay --help'")
        .doesNotContain("\tat ")
        .doesNotContain("Exception");
    assertThat(launched).isEmpty();
  }

  @Test
  void helpListsEveryOptionAndTheExamples() {
    assertThat(run("--help")).isZero();
    assertThat(out)
        .contains("Usage: binlog-relay --source mysql://USER[:PASSWORD]@HOST[:PORT] [OPTIONS]");
    for (String option :
        List.of(
            "--config",
            "--source",
            "--log-format",
            "--data-dir",
            "--flavor",
            "--sync-binlog",
            "--binlog-expire-logs-seconds",
            "--max-binlog-total-size",
            "--primary=",
            "--primary-user",
            "--primary-password",
            "--primary-password-file",
            "--server-id",
            "--report-host",
            "--report-port",
            "--start",
            "--heartbeat-period",
            "--rpl-semi-sync-replica-enabled",
            "--primary-ssl-mode",
            "--primary-ssl-ca",
            "--primary-ssl-cert",
            "--primary-ssl-key",
            "--bind-address",
            "--port",
            "--accounts-file",
            "--ssl-cert",
            "--ssl-key",
            "--auto-generate-certs",
            "--require-secure-transport",
            "--replica-send-buffer",
            "--replica-io-threads",
            "--max-connect-rate-per-host",
            "--max-connections",
            "--help",
            "--version")) {
      assertThat(out).contains(option);
    }
    assertThat(out)
        .contains("Examples:")
        .contains(RelayOptions.PASSWORD_ENV)
        .contains("Exit status: 0")
        .contains("default: 3307")
        .contains("Default: every-transaction");
    assertThat(launched).isEmpty();
  }

  @Test
  void adminOptionsDefaultToLoopbackPort9307AndNeedATokenElsewhere() throws Exception {
    assertThat(run("--server-id", "9", "--flavor", "mysql", "--accounts-file", accounts.toString()))
        .as(err)
        .isZero();
    assertThat(config().admin().bind().getPort()).isEqualTo(9307);
    assertThat(config().admin().bind().getAddress().isLoopbackAddress()).isTrue();
    assertThat(config().admin().token()).isNull();
    launched.clear();
    assertUsageError(
        run("--server-id", "9", "--flavor", "mysql", "--admin-bind-address", "0.0.0.0"),
        "--admin-bind-address 0.0.0.0 is not a loopback address: give --admin-token-file");
    assertUsageError(
        run("--server-id", "9", "--flavor", "mysql", "--admin-port", "70000"),
        "--admin-port 70000 is outside 0..65535");
    assertUsageError(
        run(
            "--server-id",
            "9",
            "--flavor",
            "mysql",
            "--admin-token-file",
            dir.resolve("none").toString()),
        "--admin-token-file");
    Path token = dir.resolve("token");
    Files.writeString(token, "  t0ken \nignored\n");
    assertThat(
            run(
                "--server-id",
                "9",
                "--flavor",
                "mysql",
                "--admin-bind-address",
                "0.0.0.0",
                "--admin-port",
                "9400",
                "--admin-token-file",
                token.toString()))
        .as(err)
        .isZero();
    assertThat(config().admin().token()).isEqualTo("t0ken");
    assertThat(config().admin().bind().getPort()).isEqualTo(9400);
    assertThat(config().admin().toString()).doesNotContain("t0ken");
    launched.clear();
    assertThat(run("--server-id", "9", "--flavor", "mysql", "--admin-port", "0")).as(err).isZero();
    assertThat(config().admin()).as("0 turns the admin server off").isNull();
  }

  @Test
  void versionPrintsTheVersion() {
    assertThat(run("--version")).isZero();
    assertThat(out).startsWith("binlog-relay ").contains("Java ");
  }

  @Test
  void aFullCommandLineBecomesTheRelayConfiguration() throws Exception {
    Path passwordFile = dir.resolve("pw");
    Files.writeString(passwordFile, "s3cret\r\nignored\n");
    assertThat(
            run(
                "--data-dir",
                dir.resolve("data").toString(),
                "--primary",
                "db1.example:3310",
                "--primary-user",
                "repl",
                "--primary-password-file",
                passwordFile.toString(),
                "--server-id",
                "9001",
                "--report-host",
                "relay1",
                "--start",
                "gtid:0-1-5",
                "--heartbeat-period",
                "500ms",
                "--bind-address",
                "0.0.0.0",
                "--port",
                "3400",
                "--replica-io-threads",
                "3",
                "--accounts-file",
                accounts.toString(),
                "--sync-binlog",
                "100",
                "--binlog-expire-logs-seconds",
                "86400",
                "--max-binlog-total-size",
                "20G",
                "--flavor",
                "mariadb",
                "--rpl-semi-sync-replica-enabled"))
        .as(err)
        .isZero();
    RelayConfig c = config();
    assertThat(c.dataDir()).isEqualTo(dir.resolve("data"));
    assertThat(c.flavor()).isEqualTo(GtidFlavor.MARIADB);
    assertThat(c.syncPolicy()).isEqualTo(SyncPolicy.everyTransactions(100));
    assertThat(c.retention().maxAge()).isEqualTo(Duration.ofDays(1));
    assertThat(c.retention().maxTotalBytes()).isEqualTo(20L << 30);
    assertThat(c.retention().purgeFilesInUse()).isFalse();
    UpstreamConfig u = c.upstream();
    assertThat(u.host()).isEqualTo("db1.example");
    assertThat(u.port()).isEqualTo(3310);
    assertThat(u.user()).isEqualTo("repl");
    assertThat(u.password()).isEqualTo("s3cret");
    assertThat(u.serverId()).isEqualTo(9001);
    assertThat(u.reportHost()).isEqualTo("relay1");
    assertThat(u.reportPort()).as("the report port defaults to --port").isEqualTo(3400);
    assertThat(u.heartbeatPeriod()).isEqualTo(Duration.ofMillis(500));
    assertThat(u.start()).isEqualTo(StartPosition.gtids("0-1-5"));
    assertThat(u.semiSync()).isTrue();
    assertThat(c.downstream().bind().getAddress()).isEqualTo(InetAddress.getByName("0.0.0.0"));
    assertThat(c.downstream().bind().getPort()).isEqualTo(3400);
    assertThat(c.downstream().serverId()).isEqualTo(9001);
    assertThat(c.downstream().ioThreads()).isEqualTo(3);
    assertThat(c.downstream().toConfig(MysqlSqlFlavor.INSTANCE, "9.7.4").ioThreads()).isEqualTo(3);
    assertThat(c.downstream().serverUuid()).isEqualTo(u.replicaUuid().toString());
    assertThat(c.downstream().accounts().all()).hasSize(1);
    assertThat(c.downstream().tls()).isNull();
    assertThat(c.toString()).doesNotContain("s3cret");
  }

  @Test
  void defaults() {
    environment.put(RelayOptions.PASSWORD_ENV, "from-env");
    assertThat(run("--primary", "db1", "--primary-user", "repl", "--server-id", "7"))
        .as(err)
        .isZero();
    RelayConfig c = config();
    assertThat(c.dataDir()).isEqualTo(Path.of("./relay-data"));
    assertThat(c.flavor()).as("detected at start").isNull();
    assertThat(c.syncPolicy()).isEqualTo(SyncPolicy.everyTransaction());
    assertThat(c.retention().maxAge()).isZero();
    assertThat(c.retention().maxTotalBytes()).isZero();
    assertThat(c.upstream().port()).isEqualTo(3306);
    assertThat(c.upstream().password()).isEqualTo("from-env");
    assertThat(c.upstream().start()).isEqualTo(StartPosition.earliest());
    assertThat(c.upstream().heartbeatPeriod()).isEqualTo(Duration.ofSeconds(1));
    assertThat(c.upstream().reportHost()).isEmpty();
    assertThat(c.upstream().semiSync()).isFalse();
    assertThat(c.upstream().reportPort()).isEqualTo(3307);
    assertThat(c.downstream().bind().getAddress().getHostAddress()).isEqualTo("127.0.0.1");
    assertThat(c.downstream().bind().getPort()).isEqualTo(3307);
    assertThat(c.downstream().accounts().all()).isEmpty();
    assertThat(c.downstream().tls()).isNull();
    assertThat(c.downstream().autoGenerateCerts())
        .as("TLS with a generated certificate, as MySQL's auto_generate_certs")
        .isTrue();
    assertThat(c.downstream().toConfig(MysqlSqlFlavor.INSTANCE, "9.7.4").autoGenerateCertificate())
        .isTrue();
    assertThat(c.downstream().requireSecureTransport()).isFalse();
    assertThat(c.downstream().ioThreads())
        .isEqualTo(Math.max(8, 2 * Runtime.getRuntime().availableProcessors()));
  }

  @Test
  void servingStoredBinlogsNeedsNoPrimary() {
    assertThat(run("--server-id", "7", "--flavor", "mysql")).as(err).isZero();
    assertThat(config().upstream()).isNull();
    assertThat(config().primary()).isEmpty();
  }

  @Test
  void thePasswordMayBeGivenOnTheCommandLineOrPrompted() {
    assertThat(
            run(
                "--primary",
                "db1",
                "--primary-user",
                "repl",
                "--server-id",
                "7",
                "--primary-password=pw1"))
        .as(err)
        .isZero();
    assertThat(config().upstream().password()).isEqualTo("pw1");
  }

  @Test
  void aPasswordWrittenOnTheCommandLineIsToldApartFromThePrompt() {
    assertThat(RelayMain.passwordOnCommandLine(List.of("--primary-password=x"))).isTrue();
    assertThat(RelayMain.passwordOnCommandLine(List.of("--primary-password", "x", "--port", "1")))
        .isTrue();
    assertThat(RelayMain.passwordOnCommandLine(List.of("--primary-password", "--port", "1")))
        .isFalse();
    assertThat(RelayMain.passwordOnCommandLine(List.of("--port", "1", "--primary-password")))
        .isFalse();
  }

  @Test
  void usageErrors() throws IOException {
    assertUsageError(run("--prot", "3306"), "Unknown options: '--prot', '3306'");
    assertUsageError(
        run("--server-id", "x"), "Invalid value for option '--server-id': 'x' is not a long");
    assertUsageError(
        run("--server-id", "7", "--sync-binlog", "sometimes"),
        "Invalid value for option '--sync-binlog': sync policy 'sometimes' not understood");
    assertUsageError(
        run("--server-id", "7", "--max-binlog-total-size", "big"), "size 'big' not understood");
    assertUsageError(run("--server-id", "7", "--start", "latest"), "start 'latest' not understood");
    assertUsageError(
        run("--server-id", "7", "--flavor", "percona"), "flavor 'percona' not understood");
    assertUsageError(run("--server-id", "7", "--primary", "db1:x"), "port 'x' is not a number");
    assertUsageError(
        run("--server-id", "0", "--flavor", "mysql"), "--server-id 0 is outside 1..4294967295");
    assertUsageError(
        run("--server-id", "7", "--primary", "db1"), "--primary-user is required with --primary");
    assertUsageError(
        run("--server-id", "7", "--primary", "db1", "--primary-user", "repl"),
        "the primary's password is missing: give --primary-password-file FILE, set $"
            + RelayOptions.PASSWORD_ENV);
    Path pw = Files.writeString(dir.resolve("pw"), "x");
    assertUsageError(
        run(
            "--server-id",
            "7",
            "--primary",
            "db1",
            "--primary-user",
            "repl",
            "--primary-password=a",
            "--primary-password-file",
            pw.toString()),
        "both give the primary's password; keep one");
    assertUsageError(
        run(
            "--server-id",
            "7",
            "--primary",
            "db1",
            "--primary-user",
            "repl",
            "--primary-password-file",
            dir.resolve("missing").toString()),
        "--primary-password-file " + dir.resolve("missing") + ": cannot read it");
    assertUsageError(
        run("--server-id", "7", "--primary-user", "repl"),
        "--primary-user given without --primary");
    assertUsageError(
        run("--server-id", "7", "--port", "70000"), "--port 70000 is outside 0..65535");
    assertUsageError(
        run("--server-id", "7", "--bind-address", "no-such-host.invalid"),
        "--bind-address 'no-such-host.invalid' is not an address of this host");
    assertUsageError(
        run(
            "--server-id",
            "7",
            "--heartbeat-period",
            "0",
            "--primary",
            "db1",
            "--primary-user",
            "r",
            "--primary-password=p"),
        "primary settings: heartbeat period PT0S is outside 1 ms");
  }

  @Test
  void accountsAndTlsFilesAreChecked() throws IOException {
    Path bad =
        Files.writeString(dir.resolve("bad-accounts"), "# first\nrepl@% REPLICATION_SLAVE\n");
    assertUsageError(
        run("--server-id", "7", "--accounts-file", bad.toString()),
        "--accounts-file "
            + bad
            + ", accounts line 2: expected 'user@host privileges hash', the hash is missing");
    assertUsageError(
        run("--server-id", "7", "--accounts-file", dir.resolve("none").toString()),
        "--accounts-file " + dir.resolve("none") + ": cannot read it");
    Path cert = Files.writeString(dir.resolve("cert.pem"), "-----BEGIN CERTIFICATE-----\n");
    assertUsageError(
        run("--server-id", "7", "--ssl-cert", cert.toString()),
        "--ssl-cert and --ssl-key go together");
    assertUsageError(
        run("--server-id", "7", "--require-secure-transport", "--auto-generate-certs=false"),
        "--require-secure-transport needs TLS: --ssl-cert and --ssl-key, or --auto-generate-certs");
    assertUsageError(
        run("--server-id", "7", "--max-connections", "0"),
        "--max-connections 0 is outside 1..100000");
    assertUsageError(
        run("--server-id", "7", "--max-connect-rate-per-host", "-1"),
        "--max-connect-rate-per-host -1 is outside 0..1000000 (0: no limit)");
    assertUsageError(
        run("--server-id", "7", "--replica-send-buffer", "100"),
        "--replica-send-buffer 100 is outside 4K..256M (0: sized by the operating system)");
    assertUsageError(
        run("--server-id", "7", "--replica-io-threads", "0"),
        "--replica-io-threads 0 is outside 1..256");
    assertUsageError(
        run(
            "--server-id",
            "7",
            "--ssl-cert",
            cert.toString(),
            "--ssl-key",
            dir.resolve("key.pem").toString()),
        "--ssl-key " + dir.resolve("key.pem") + ": no such readable file");
    Path key = Files.writeString(dir.resolve("key.pem"), "-----BEGIN PRIVATE KEY-----\n");
    assertThat(
            run(
                "--server-id",
                "7",
                "--flavor",
                "mysql",
                "--ssl-cert",
                cert.toString(),
                "--ssl-key",
                key.toString(),
                "--require-secure-transport"))
        .as(err)
        .isZero();
    assertThat(config().downstream().tls().certificateChain()).isEqualTo(cert);
    assertThat(config().downstream().requireSecureTransport()).isTrue();
    launched.clear();
    assertThat(run("--server-id", "7", "--flavor", "mysql", "--require-secure-transport"))
        .as(err)
        .isZero();
    assertThat(config().downstream().tls()).isNull();
    assertThat(config().downstream().autoGenerateCerts()).isTrue();
    assertThat(config().downstream().requireSecureTransport())
        .as("over a generated certificate")
        .isTrue();
    launched.clear();
    assertThat(run("--server-id", "7", "--flavor", "mysql", "--auto-generate-certs=false"))
        .as(err)
        .isZero();
    assertThat(config().downstream().autoGenerateCerts()).isFalse();
    assertThat(
            config()
                .downstream()
                .toConfig(MysqlSqlFlavor.INSTANCE, "9.7.4")
                .autoGenerateCertificate())
        .isFalse();
  }

  @Test
  void tlsToThePrimary() throws IOException {
    environment.put(RelayOptions.PASSWORD_ENV, "pw");
    Path ca = Files.writeString(dir.resolve("ca.pem"), "x");
    Path cert = Files.writeString(dir.resolve("client-cert.pem"), "x");
    Path key = Files.writeString(dir.resolve("client-key.pem"), "x");
    assertThat(run("--primary", "db1", "--primary-user", "repl", "--server-id", "7"))
        .as(err)
        .isZero();
    assertThat(config().upstream().tls()).isEqualTo(TlsConfig.DISABLED);
    launched.clear();
    assertThat(
            run(
                "--primary",
                "db1",
                "--primary-user",
                "repl",
                "--server-id",
                "7",
                "--primary-ssl-mode",
                "VERIFY-IDENTITY",
                "--primary-ssl-ca",
                ca.toString(),
                "--primary-ssl-cert",
                cert.toString(),
                "--primary-ssl-key",
                key.toString()))
        .as(err)
        .isZero();
    assertThat(config().upstream().tls())
        .isEqualTo(new TlsConfig(TlsMode.VERIFY_IDENTITY, ca, cert, key));
    launched.clear();
    assertThat(
            run(
                "--primary",
                "db1",
                "--primary-user",
                "repl",
                "--server-id",
                "7",
                "--primary-ssl-mode",
                "required"))
        .as(err)
        .isZero();
    assertThat(config().upstream().tls()).isEqualTo(TlsConfig.of(TlsMode.REQUIRED));
    launched.clear();
    assertUsageError(
        run(
            "--primary",
            "db1",
            "--primary-user",
            "repl",
            "--server-id",
            "7",
            "--primary-ssl-mode",
            "sometimes"),
        "TLS mode 'sometimes' not understood; use disabled, preferred, required, verify_ca or"
            + " verify_identity");
    assertUsageError(
        run(
            "--primary",
            "db1",
            "--primary-user",
            "repl",
            "--server-id",
            "7",
            "--primary-ssl-ca",
            ca.toString()),
        "need --primary-ssl-mode preferred, required, verify_ca or verify_identity");
    assertUsageError(
        run(
            "--primary",
            "db1",
            "--primary-user",
            "repl",
            "--server-id",
            "7",
            "--primary-ssl-mode",
            "required",
            "--primary-ssl-cert",
            cert.toString()),
        "--primary-ssl-cert and --primary-ssl-key go together");
    assertUsageError(
        run(
            "--primary",
            "db1",
            "--primary-user",
            "repl",
            "--server-id",
            "7",
            "--primary-ssl-mode",
            "verify_ca",
            "--primary-ssl-ca",
            dir.resolve("none.pem").toString()),
        "--primary-ssl-ca " + dir.resolve("none.pem") + ": no such readable file");
  }

  @Test
  void theConfigFileSuppliesDefaultsAndTheCommandLineWins() throws IOException {
    Path pw = Files.writeString(dir.resolve("pw"), "file-pass\n");
    Path file =
        Files.writeString(
            dir.resolve("relay.properties"),
            String.join(
                "\n",
                "# a relay",
                "data-dir=" + dir.resolve("data"),
                "primary=db2:3311",
                "primary_user=repl",
                "primary-password-file=" + pw,
                "server-id=42",
                "sync_binlog=off",
                "port=3500",
                "require-secure-transport=false",
                "start=file:binlog.000007",
                "accounts-file=" + accounts,
                ""));
    assertThat(run("--config", file.toString(), "--port", "3600")).as(err).isZero();
    RelayConfig c = config();
    assertThat(c.dataDir()).isEqualTo(dir.resolve("data"));
    assertThat(c.upstream().host()).isEqualTo("db2");
    assertThat(c.upstream().port()).isEqualTo(3311);
    assertThat(c.upstream().user()).isEqualTo("repl");
    assertThat(c.upstream().password()).isEqualTo("file-pass");
    assertThat(c.upstream().serverId()).isEqualTo(42);
    assertThat(c.upstream().start()).isEqualTo(StartPosition.file("binlog.000007", 4));
    assertThat(c.syncPolicy()).isEqualTo(SyncPolicy.off());
    assertThat(c.downstream().bind().getPort()).as("the command line wins").isEqualTo(3600);
    assertThat(c.downstream().accounts().all()).hasSize(1);

    launched.clear();
    assertThat(run("--config=" + file, "--sync-binlog", "2s")).as(err).isZero();
    assertThat(config().syncPolicy()).isEqualTo(SyncPolicy.every(Duration.ofSeconds(2)));
    assertThat(config().downstream().bind().getPort()).isEqualTo(3500);
  }

  @Test
  void theConfigFileMayHoldThePasswordAndBooleans() throws IOException {
    Path cert = Files.writeString(dir.resolve("cert.pem"), "x");
    Path key = Files.writeString(dir.resolve("key.pem"), "x");
    Path file =
        Files.writeString(
            dir.resolve("relay.properties"),
            "primary=db1\nprimary-user=repl\n"
                + "primary-password=in-file\nserver-id=3\nssl-cert="
                + cert
                + "\nssl-key="
                + key
                + "\nrequire_secure_transport=true\n");
    assertThat(run("--config", file.toString())).as(err).isZero();
    assertThat(config().upstream().password()).isEqualTo("in-file");
    assertThat(config().downstream().requireSecureTransport()).isTrue();
  }

  @Test
  void configFileErrors() throws IOException {
    assertUsageError(
        run("--config", dir.resolve("none.properties").toString()),
        "--config " + dir.resolve("none.properties") + ": cannot read it");
    Path typo = Files.writeString(dir.resolve("typo.properties"), "server-id=3\nsync-bin-log=1\n");
    assertUsageError(
        run("--config", typo.toString()),
        typo
            + ":2: unknown key 'sync-bin-log' (did you mean"
            + " 'sync-binlog'?); keys are the long option names without '--'");
    Path nested = Files.writeString(dir.resolve("nested.properties"), "config=/etc/other\n");
    assertUsageError(
        run("--config", nested.toString()), "'config' can only be given on the command line");
    Path twice =
        Files.writeString(dir.resolve("twice.properties"), "sync-binlog=1\nsync_binlog=0\n");
    assertUsageError(run("--config", twice.toString()), "'sync-binlog' is set twice");
    Path badValue =
        Files.writeString(dir.resolve("bad.properties"), "server-id=3\nsync-binlog=sometimes\n");
    assertUsageError(
        run("--config", badValue.toString()), "sync policy 'sometimes' not understood");
    assertUsageError(run("--config"), "--config needs a FILE");
  }

  @Test
  void aRelayThatCannotStartExitsWithOneAndOneLine() {
    launcher =
        config -> {
          throw new RelayStartException(
              "cannot open the binlog store in /x: Permission denied; check that the"
                  + " directory is writable");
        };
    assertThat(run("--server-id", "7", "--flavor", "mysql")).isEqualTo(RelayMain.FAILED);
    assertThat(err)
        .isEqualTo(
            "binlog-relay: cannot start: cannot open the binlog store in /x: Permission denied;"
                + " check that the directory is writable"
                + System.lineSeparator());
  }

  @Test
  void theLaunchersStatusIsTheExitStatus() {
    launcher = config -> RelayMain.FAILED;
    assertThat(run("--server-id", "7", "--flavor", "mysql")).isEqualTo(RelayMain.FAILED);
  }
}
