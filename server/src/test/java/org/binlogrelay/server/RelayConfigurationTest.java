package org.binlogrelay.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.binlogrelay.server.upstream.TlsMode;
import org.binlogrelay.storage.SyncPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Configuration from a YAML file, the environment and the command line, their precedence, {@code
 * --source URL}, the derived server_id, and the misconfigurations an operator makes: each fails
 * with one line naming the option and where it was set. The host checks ({@link Preflight}) run for
 * real against this host; the relay does not.
 */
class RelayConfigurationTest {
  private static final String SECRET = "Sup3r-secret";

  @TempDir Path dir;

  private final Map<String, String> environment = new HashMap<>();
  private final List<RelayConfig> launched = new ArrayList<>();
  private RelayMain.Check check = (config, describe) -> {};
  private String err;

  private int run(String... args) {
    StringWriter o = new StringWriter();
    StringWriter e = new StringWriter();
    int status =
        RelayMain.execute(
            args,
            environment,
            check,
            config -> {
              launched.add(config);
              return RelayMain.OK;
            },
            new PrintWriter(o),
            new PrintWriter(e));
    err = e.toString();
    return status;
  }

  private RelayConfig config() {
    assertThat(launched).as(err).hasSize(1);
    return launched.remove(0);
  }

  private Path yaml(String... lines) throws IOException {
    return Files.writeString(dir.resolve("relay.yaml"), String.join("\n", lines) + "\n");
  }

  /**
   * One line (plus the pointer to --help for usage errors), the status, nothing run, no secret
   * shown.
   */
  private void assertFails(int status, int expectedStatus, String message) {
    assertThat(status).as(err).isEqualTo(expectedStatus);
    assertThat(err)
        .startsWith("binlog-relay: ")
        .contains(message)
        .doesNotContain(SECRET)
        .doesNotContain("\tat ")
        .doesNotContain("Exception");
    assertThat(err.lines().filter(l -> !l.startsWith("Run 'binlog-relay --help'")).count())
        .as(err)
        .isOne();
    assertThat(launched).isEmpty();
  }

  @Test
  void aYamlFileSetsOptionsByTheirLongNames() throws IOException {
    Path pw = Files.writeString(dir.resolve("pw"), SECRET + "\n");
    Path file =
        yaml(
            "# the relay",
            "source: mysql://repl@db1.example:3310",
            "primary-password-file: " + pw,
            "server-id: 9001",
            "data-dir: " + dir.resolve("data"),
            "sync_binlog: off            # YAML's 'off' stays text",
            "heartbeat-period: 0.5",
            "max-binlog-total-size: 20G",
            "rpl-semi-sync-replica-enabled: true",
            "port: 3500");
    assertThat(run("--config", file.toString())).as(err).isZero();
    RelayConfig c = config();
    assertThat(c.upstream().host()).isEqualTo("db1.example");
    assertThat(c.upstream().port()).isEqualTo(3310);
    assertThat(c.upstream().user()).isEqualTo("repl");
    assertThat(c.upstream().password()).isEqualTo(SECRET);
    assertThat(c.upstream().serverId()).isEqualTo(9001);
    assertThat(c.upstream().heartbeatPeriod()).isEqualTo(Duration.ofMillis(500));
    assertThat(c.upstream().semiSync()).isTrue();
    assertThat(c.dataDir()).isEqualTo(dir.resolve("data"));
    assertThat(c.syncPolicy()).isEqualTo(SyncPolicy.off());
    assertThat(c.retention().maxTotalBytes()).isEqualTo(20L << 30);
    assertThat(c.downstream().bind().getPort()).isEqualTo(3500);
    assertThat(c.toString()).doesNotContain(SECRET);
  }

  @Test
  void commandLineBeatsEnvironmentBeatsFileBeatsDefault() throws IOException {
    environment.put(RelayOptions.PASSWORD_ENV, "x");
    Path file = yaml("port: 3500", "server-id: 5", "flavor: mysql");
    assertThat(run("--server-id", "5", "--flavor", "mysql")).as(err).isZero();
    assertThat(config().downstream().bind().getPort()).as("default").isEqualTo(3307);
    assertThat(run("--config", file.toString())).as(err).isZero();
    assertThat(config().downstream().bind().getPort()).as("file").isEqualTo(3500);
    environment.put("BINLOG_RELAY_PORT", "3600");
    assertThat(run("--config", file.toString())).as(err).isZero();
    assertThat(config().downstream().bind().getPort()).as("environment over file").isEqualTo(3600);
    assertThat(run("--config", file.toString(), "--port", "3700")).as(err).isZero();
    assertThat(config().downstream().bind().getPort())
        .as("command line over environment")
        .isEqualTo(3700);
    environment.put("BINLOG_RELAY_CONFIG", file.toString());
    environment.put("BINLOG_RELAY_PORT", "");
    assertThat(run()).as(err).isZero();
    assertThat(config().downstream().bind().getPort())
        .as("$BINLOG_RELAY_CONFIG; an empty variable is unset")
        .isEqualTo(3500);
  }

  @Test
  void everyOptionHasAnEnvironmentVariable() {
    environment.put("BINLOG_RELAY_SOURCE", "mariadb://repl@db2");
    environment.put("BINLOG_RELAY_PRIMARY_PASSWORD", SECRET);
    environment.put("BINLOG_RELAY_SYNC_BINLOG", "2s");
    environment.put("BINLOG_RELAY_SERVER_ID", "77");
    environment.put("BINLOG_RELAY_REQUIRE_SECURE_TRANSPORT", "false");
    environment.put("BINLOG_RELAY_PRIMARY_SSL_MODE", "preferred");
    assertThat(run()).as(err).isZero();
    RelayConfig c = config();
    assertThat(c.upstream().host()).isEqualTo("db2");
    assertThat(c.upstream().port()).isEqualTo(3306);
    assertThat(c.upstream().password()).isEqualTo(SECRET);
    assertThat(c.upstream().serverId()).isEqualTo(77);
    assertThat(c.upstream().tls().mode()).isEqualTo(TlsMode.PREFERRED);
    assertThat(c.syncPolicy()).isEqualTo(SyncPolicy.every(Duration.ofSeconds(2)));
  }

  @Test
  void thePasswordComesFromTheHighestLayerThatGivesOne() throws IOException {
    Path fromFlag = Files.writeString(dir.resolve("flag-pw"), "flag\n");
    Path fromFile = Files.writeString(dir.resolve("file-pw"), "file\n");
    Path file =
        yaml(
            "primary: db1",
            "primary-user: repl",
            "server-id: 5",
            "primary-password-file: " + fromFile);
    assertThat(run("--config", file.toString())).as(err).isZero();
    assertThat(config().upstream().password()).isEqualTo("file");
    environment.put(RelayOptions.PASSWORD_ENV, "env");
    assertThat(run("--config", file.toString())).as(err).isZero();
    assertThat(config().upstream().password())
        .as("the variable over the file's password file")
        .isEqualTo("env");
    assertThat(run("--config", file.toString(), "--primary-password-file", fromFlag.toString()))
        .as(err)
        .isZero();
    assertThat(config().upstream().password())
        .as("the command line over the variable")
        .isEqualTo("flag");
    assertThat(run("--config", file.toString(), "--source", "mysql://u:url@db3")).as(err).isZero();
    RelayConfig c = config();
    assertThat(c.upstream().password())
        .as("--source's password over the variable")
        .isEqualTo("url");
    assertThat(c.upstream().user()).isEqualTo("u");
    assertThat(c.upstream().host()).isEqualTo("db3");
  }

  @Test
  void aSourceUrlIsEnoughToStart() throws IOException {
    Path ca = Files.writeString(dir.resolve("ca.pem"), "x");
    assertThat(
            run(
                "--source",
                "mysql://repl:p%40ss%3Aw@[::1]:3310/?ssl-mode=verify_identity&ssl-ca=" + ca,
                "--data-dir",
                dir.resolve("data").toString()))
        .as(err)
        .isZero();
    RelayConfig c = config();
    assertThat(c.upstream().host()).isEqualTo("::1");
    assertThat(c.upstream().port()).isEqualTo(3310);
    assertThat(c.upstream().user()).isEqualTo("repl");
    assertThat(c.upstream().password()).isEqualTo("p@ss:w");
    assertThat(c.upstream().tls().mode()).isEqualTo(TlsMode.VERIFY_IDENTITY);
    assertThat(c.upstream().tls().ca()).isEqualTo(ca);
    long id = c.upstream().serverId();
    assertThat(id)
        .as("derived server_id")
        .isBetween(DerivedServerId.FIRST, 0x7FFFFFFFL)
        .isEqualTo(DerivedServerId.of(DerivedServerId.hostName(), dir.resolve("data")));
    assertThat(c.downstream().serverId()).isEqualTo(id);
    assertThat(run("--source", "mysql://repl:x@db1", "--data-dir", dir.resolve("data").toString()))
        .isZero();
    assertThat(config().upstream().serverId()).as("the same at every start").isEqualTo(id);
    assertThat(run("--source", "mysql://repl:x@db1", "--data-dir", dir.resolve("other").toString()))
        .isZero();
    assertThat(config().upstream().serverId()).as("another data directory").isNotEqualTo(id);
  }

  @Test
  void sourceUrlParsing() {
    SourceUrl url = SourceUrl.parse("MariaDB://a%2Fb@db1");
    assertThat(url.user()).isEqualTo("a/b");
    assertThat(url.password()).isNull();
    assertThat(url.host()).isEqualTo(new HostPort("db1", 3306));
    assertThat(SourceUrl.parse("mysql://u:" + SECRET + "@h:1?ssl-mode=required").toString())
        .isEqualTo("mysql://u:***@h:1?ssl-mode=required");
    assertThat(SourceUrl.redact("x mysql://u:" + SECRET + "@h y")).isEqualTo("x mysql://u:***@h y");
    // a raw '@' or a space in the password is hidden too (parse splits at the last '@')
    assertThat(SourceUrl.redact("source 'mysql://repl:p@ss@db1:99999': bad"))
        .isEqualTo("source 'mysql://repl:***@db1:99999': bad");
    assertThat(SourceUrl.redact("source 'mysql://repl:a b@db1/x' and 'mariadb://r:c@d@e'"))
        .isEqualTo("source 'mysql://repl:***@db1/x' and 'mariadb://r:***@e'");
    assertThat(SourceUrl.redact("mysql://db1:3306 and mysql://u@h"))
        .isEqualTo("mysql://db1:3306 and mysql://u@h");
    assertFails(
        run("--source", "mysql://u:p@" + SECRET + "@h:99999"),
        RelayMain.USAGE,
        "port 99999 is outside");
    assertFails(
        run("--source", "postgres://u:" + SECRET + "@h"),
        RelayMain.USAGE,
        "source 'postgres://u:***@h' does not start with mysql:// or mariadb://");
    assertFails(
        run("--source", "mysql://u:" + SECRET + "@h?tls=on"),
        RelayMain.USAGE,
        "unknown parameter 'tls'; known: ssl-mode, ssl-ca, ssl-cert, ssl-key");
    assertFails(
        run("--source", "mysql://u:" + SECRET + "@h:99999"),
        RelayMain.USAGE,
        "port 99999 is outside");
    assertFails(
        run("--source", "mysql://u:" + SECRET + "@h/shop"),
        RelayMain.USAGE,
        "names a schema ('/shop')");
    assertFails(
        run("--source", "mysql://u:" + SECRET + "@h?ssl-mode=maybe"),
        RelayMain.USAGE,
        "TLS mode 'maybe' not understood");
    assertFails(
        run("mysql://u:" + SECRET + "@h"),
        RelayMain.USAGE,
        "Unmatched argument at index 0:" + " 'mysql://u:***@h'");
  }

  @Test
  void sourceAndPrimaryOptionsAtTheSamePrecedenceConflict() {
    environment.put(RelayOptions.PASSWORD_ENV, "x");
    assertFails(
        run("--source", "mysql://repl@db1", "--primary", "db2"),
        RelayMain.USAGE,
        "--source and --primary both set the primary's address; keep one");
    assertFails(
        run("--source", "mysql://repl:" + SECRET + "@db1", "--primary-password=" + SECRET),
        RelayMain.USAGE,
        "--source and --primary-password both give the primary's password; keep one");
    environment.put("BINLOG_RELAY_SOURCE", "mysql://repl@db1:3310");
    assertThat(run("--primary-user", "other")).as(err).isZero();
    RelayConfig c = config();
    assertThat(c.upstream().user())
        .as("the command line over the variable's URL")
        .isEqualTo("other");
    assertThat(c.upstream().host()).isEqualTo("db1");
  }

  @Test
  void misconfigurationsNameTheKeyAndWhereItWasSet() throws IOException {
    Path file = yaml("server-id: 5", "flavor: mysql", "sync-bin-log: 1");
    assertFails(
        run("--config", file.toString()),
        RelayMain.USAGE,
        file + ":3: unknown key 'sync-bin-log' (did you mean 'sync-binlog'?)");
    file = yaml("server-id: 5", "flavor: mysql", "port: many");
    assertFails(
        run("--config", file.toString()),
        RelayMain.USAGE,
        file + ":3: Invalid value for option '--port': 'many' is not an int");
    file = yaml("server-id: 5", "flavor: mysql", "port: 70000");
    assertFails(
        run("--config", file.toString()),
        RelayMain.USAGE,
        file + ":3: --port 70000 is outside 0..65535");
    file = yaml("server-id: 5", "primary:", "  host: db1", "  user: repl");
    assertFails(
        run("--config", file.toString()),
        RelayMain.USAGE,
        file + ":2: 'primary' has a nested mapping; keys" + " are flat option names");
    file = yaml("server-id: 5", "port:");
    assertFails(
        run("--config", file.toString()), RelayMain.USAGE, file + ":2: 'port' has no value");
    file = yaml("server-id: 5", "port: 1", "port: 2");
    assertFails(
        run("--config", file.toString()),
        RelayMain.USAGE,
        file + ":3: 'port' is set twice (also at " + file + ":2)");
    file = yaml("server-id: 5", "source: \"mysql://u:" + SECRET + "@h", "port: 2");
    assertFails(run("--config", file.toString()), RelayMain.USAGE, file + ":");
    assertThat(err).contains("not valid YAML");
    file = yaml("- server-id: 5");
    assertFails(
        run("--config", file.toString()),
        RelayMain.USAGE,
        file + ":1: expected 'key: value' lines");

    environment.put("BINLOG_RELAY_SYNC_BINLOG", "sometimes");
    assertFails(
        run("--server-id", "5", "--flavor", "mysql"),
        RelayMain.USAGE,
        "$BINLOG_RELAY_SYNC_BINLOG: Invalid value for option '--sync-binlog': sync policy 'sometimes' not understood");
    environment.clear();
    environment.put("BINLOG_RELAY_PORT", "-1");
    assertFails(
        run("--server-id", "5", "--flavor", "mysql"),
        RelayMain.USAGE,
        "$BINLOG_RELAY_PORT: --port -1 is outside 0..65535");
    environment.clear();
    environment.put("BINLOG_RELAY_SOURCE", "mysql://u:" + SECRET + "@h:0");
    assertFails(
        run("--flavor", "mysql"),
        RelayMain.USAGE,
        "$BINLOG_RELAY_SOURCE: Invalid value for option"
            + " '--source': source 'mysql://u:***@h:0': port 0 is outside 1..65535");
  }

  @Test
  void unknownEnvironmentVariablesAreReportedNotFatal() {
    RelayMain main = new RelayMain(Map.of(), (c, d) -> {}, c -> 0);
    CommandLine commandLine = new CommandLine(main);
    OptionSources sources =
        OptionSources.of(
            commandLine.getCommandSpec(),
            Map.of(
                "BINLOG_RELAY_SYNC_BINLOGG",
                "1",
                "BINLOG_RELAY_JAR",
                "x.jar",
                "PATH",
                "/bin",
                "BINLOG_RELAY_PORT",
                "1"),
            null,
            new String[0]);
    assertThat(sources.warnings())
        .containsExactly(
            "environment variable BINLOG_RELAY_SYNC_BINLOGG names no option of"
                + " binlog-relay; ignored (did you mean BINLOG_RELAY_SYNC_BINLOG?)");
    assertThat(sources.setting("port"))
        .contains(
            new OptionSources.Setting("1", OptionSources.Layer.ENVIRONMENT, "$BINLOG_RELAY_PORT"));
  }

  @Test
  void theHostChecksNameTheOptionAndExitWithOne() throws IOException {
    check = Preflight.ON_THIS_HOST;
    Path blocker = Files.writeString(dir.resolve("a-file"), "x");
    assertFails(
        run(
            "--server-id",
            "5",
            "--flavor",
            "mysql",
            "--port",
            "0",
            "--data-dir",
            blocker.resolve("data").toString()),
        RelayMain.FAILED,
        "binlog-relay: cannot start: --data-dir "
            + blocker.resolve("data")
            + ": not a directory ("
            + blocker
            + " is a file)");

    Path file = yaml("server-id: 5", "flavor: mysql", "data-dir: " + dir.resolve("data"));
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      assertFails(
          run("--config", file.toString(), "--port", Integer.toString(taken.getLocalPort())),
          RelayMain.FAILED,
          "cannot start: --port "
              + taken.getLocalPort()
              + ": 127.0.0.1:"
              + taken.getLocalPort()
              + " is already in use; choose another --port");
      environment.put("BINLOG_RELAY_PORT", Integer.toString(taken.getLocalPort()));
      assertFails(
          run("--config", file.toString()),
          RelayMain.FAILED,
          "cannot start: --port ($BINLOG_RELAY_PORT) "
              + taken.getLocalPort()
              + ": 127.0.0.1:"
              + taken.getLocalPort()
              + " is already in use");
      environment.clear();
    }

    int closed;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = socket.getLocalPort();
    }
    environment.put("BINLOG_RELAY_SOURCE", "mysql://repl:" + SECRET + "@127.0.0.1:" + closed);
    assertFails(
        run("--config", file.toString(), "--port", "0"),
        RelayMain.FAILED,
        "cannot start: --primary"
            + " ($BINLOG_RELAY_SOURCE) 127.0.0.1:"
            + closed
            + ": unreachable: cannot connect to primary 127.0.0.1:"
            + closed
            + ": Connection refused");
    assertThat(err).contains("The store in " + dir.resolve("data").toAbsolutePath() + " is empty");

    environment.clear();
    assertThat(run("--config", file.toString(), "--port", "0")).as(err).isZero();
    assertThat(config().dataDir()).isDirectory();
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("data"))))
        .as("created for the relay's user only, as the store creates it")
        .isEqualTo("rwx------");
  }
}
