package org.binlogrelay.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.binlogrelay.server.downstream.schema.SchemaSourceConfig;
import org.binlogrelay.server.upstream.TlsMode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --schema-source} and its options from the command line, the environment and the YAML file:
 * off by default, the password from the highest layer that gives one (as the primary's), TLS
 * preferred unless the URL says otherwise, and one clear line for each misconfiguration, never the
 * password.
 */
class SchemaSourceOptionsTest {
  private static final String SECRET = "Sch3ma-secret";

  @TempDir Path dir;

  private RelayCommandLine cli;

  @BeforeEach
  void commandLine() {
    cli = new RelayCommandLine(dir.resolve("data"));
  }

  private int run(String... args) {
    return cli.run(args);
  }

  private SchemaSourceConfig schemaSource() {
    return cli.launched().schemaSource();
  }

  private void assertUsageError(int status, String message) {
    cli.assertUsageError(status, message);
    assertThat(cli.err()).doesNotContain(SECRET);
  }

  @Test
  void offByDefault() {
    cli.environment().put(RelayOptions.SCHEMA_SOURCE_PASSWORD_ENV, SECRET);
    assertThat(run()).as(cli.err()).isZero();
    assertThat(schemaSource()).as("the variable alone turns nothing on").isNull();
  }

  @Test
  void aUrlAndAPasswordFileMakeASchemaSourceWithTheDefaults() throws IOException {
    Path pw = Files.writeString(dir.resolve("pw"), SECRET + "\r\n");
    assertThat(
            run(
                "--schema-source",
                "mysql://relay_schema@db1.example",
                "--schema-source-password-file",
                pw.toString()))
        .as(cli.err())
        .isZero();
    SchemaSourceConfig c = schemaSource();
    assertThat(c.endpoint().role()).isEqualTo("schema source");
    assertThat(c.endpoint().host()).isEqualTo("db1.example");
    assertThat(c.endpoint().port()).isEqualTo(3306);
    assertThat(c.endpoint().user()).isEqualTo("relay_schema");
    assertThat(c.endpoint().password()).isEqualTo(SECRET);
    assertThat(c.endpoint().tls().mode()).isEqualTo(TlsMode.PREFERRED);
    assertThat(c.timeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(c.maxConnections()).isEqualTo(4);
    assertThat(c.toString()).doesNotContain(SECRET).contains("relay_schema@db1.example:3306");
  }

  @Test
  void everyOptionFromTheEnvironmentOrTheFile() throws IOException {
    Path ca = Files.writeString(dir.resolve("ca.pem"), "x");
    Path file =
        Files.writeString(
            dir.resolve("relay.yaml"),
            String.join(
                    "\n",
                    "schema-source: mariadb://s@127.0.0.1:3310?ssl-mode=verify_ca&ssl-ca=" + ca,
                    "schema_source_timeout: 1500ms",
                    "schema-source-connections: 2")
                + "\n");
    cli.environment().put(RelayOptions.SCHEMA_SOURCE_PASSWORD_ENV, SECRET);
    assertThat(run("--config", file.toString())).as(cli.err()).isZero();
    SchemaSourceConfig c = schemaSource();
    assertThat(c.endpoint().address()).isEqualTo("127.0.0.1:3310");
    assertThat(c.endpoint().password()).isEqualTo(SECRET);
    assertThat(c.endpoint().tls().mode()).isEqualTo(TlsMode.VERIFY_CA);
    assertThat(c.endpoint().tls().ca()).isEqualTo(ca);
    assertThat(c.timeout()).isEqualTo(Duration.ofMillis(1500));
    assertThat(c.maxConnections()).isEqualTo(2);
  }

  @Test
  void thePasswordComesFromTheHighestLayerThatGivesOne() throws IOException {
    Path pw = Files.writeString(dir.resolve("pw"), "from-file\n");
    cli.environment().put("BINLOG_RELAY_SCHEMA_SOURCE", "mysql://s:from-url@db1");
    assertThat(run("--schema-source-password-file", pw.toString())).as(cli.err()).isZero();
    assertThat(schemaSource().endpoint().password())
        .as("the command line over the variable's URL")
        .isEqualTo("from-file");
    cli.environment().put(RelayOptions.SCHEMA_SOURCE_PASSWORD_ENV, "from-variable");
    assertThat(run("--schema-source", "mysql://s:on-line@db1")).as(cli.err()).isZero();
    assertThat(schemaSource().endpoint().password())
        .as("the URL on the command line over the variable")
        .isEqualTo("on-line");
    assertUsageError(
        run(
            "--schema-source",
            "mysql://s:" + SECRET + "@db1",
            "--schema-source-password-file",
            pw.toString()),
        "the password in --schema-source and --schema-source-password-file both give the schema"
            + " source's password; keep one");
  }

  @Test
  void misconfigurationsAreOneLineNamingTheOption() throws IOException {
    assertUsageError(
        run("--schema-source", "mysql://db1"), "--schema-source mysql://db1:3306 names no user");
    assertUsageError(
        run("--schema-source", "mysql://s@db1"),
        "the schema source's password is missing: give"
            + " --schema-source-password-file FILE, set $"
            + RelayOptions.SCHEMA_SOURCE_PASSWORD_ENV);
    Path pw = Files.writeString(dir.resolve("pw"), SECRET);
    assertUsageError(
        run("--schema-source-password-file", pw.toString()),
        "--schema-source-password-file given" + " without --schema-source URL");
    assertUsageError(
        run("--schema-source", "mysql://s:" + SECRET + "@db1", "--schema-source-connections", "0"),
        "--schema-source-connections 0 is outside 1..256");
    assertUsageError(
        run("--schema-source", "mysql://s:" + SECRET + "@db1", "--schema-source-timeout", "2h"),
        "--schema-source-timeout PT2H is outside 1 ms .. 1 h");
    assertUsageError(
        run(
            "--schema-source",
            "mysql://s:" + SECRET + "@db1?ssl-mode=verify_ca&ssl-ca=" + dir.resolve("missing.pem")),
        "--schema-source ssl-ca " + dir.resolve("missing.pem") + ": no such readable file");
    assertUsageError(
        run("--schema-source", "mysql://s:" + SECRET + "@db1?ssl-mode=disabled&ssl-ca=" + pw),
        "ssl-ca, ssl-cert and ssl-key need ssl-mode preferred");
    assertUsageError(
        run("--schema-source", "postgres://s@db1"), "does not start with mysql:// or mariadb://");
  }
}
