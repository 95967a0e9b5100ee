package org.binlogrelay.server.downstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import org.binlogrelay.protocol.handshake.CapabilityFlags;
import org.binlogrelay.protocol.query.QueryResponse;
import org.binlogrelay.protocol.testing.WireClient;
import org.binlogrelay.server.downstream.sql.BinlogListing;
import org.binlogrelay.server.downstream.sql.MariadbSqlFlavor;
import org.binlogrelay.server.downstream.sql.MysqlSqlFlavor;
import org.binlogrelay.server.downstream.sql.SqlFlavor;
import org.binlogrelay.storage.Time;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Zero-configuration TLS on a real loopback socket: without certificate files the server generates
 * one, and after a mysql_native_password login over TLS its OK carries MariaDB 11.4+'s proof of the
 * certificate, byte for byte as the client side of the check (written here from the description,
 * MariaDB Connector/J's validateFingerPrint) expects it. Other logins end with the plain 7-byte OK.
 */
class ZeroConfigTlsTest {
  /** The OK without info: header, 0 rows, id 0, SERVER_STATUS_AUTOCOMMIT, 0 warnings. */
  private static final byte[] PLAIN_OK = {0, 0, 0, 2, 0, 0, 0};

  @TempDir Path dir;

  private static ReplicaServerConfig.Builder config(SqlFlavor dialect) {
    return TestServers.config(dialect)
        .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
        .ioThreads(1);
  }

  private static ReplicaServer start(ReplicaServerConfig config) {
    return ReplicaServer.start(config, new RefusingDumpHandler(), BinlogListing.EMPTY, Time.SYSTEM);
  }

  @ParameterizedTest
  @ValueSource(strings = {"mariadb", "mysql"})
  void aGeneratedCertificateIsProvedAfterANativeLogin(String flavor) throws Exception {
    SqlFlavor dialect =
        flavor.equals("mariadb") ? MariadbSqlFlavor.INSTANCE : MysqlSqlFlavor.INSTANCE;
    try (ReplicaServer server = start(config(dialect).build())) {
      X509Certificate generated = server.tlsCertificate().orElseThrow();
      assertThat(generated.getSubjectX500Principal().getName())
          .isEqualTo(GeneratedCertificate.SUBJECT);
      try (WireClient c = WireClient.connect(server.port())) {
        assertThat(c.greeting().has(CapabilityFlags.CLIENT_SSL)).isTrue();
        byte[] scramble = c.greeting().scramble();
        c.startTls(ReplicaServerTest.trustAll());
        assertThat(c.serverCertificate()).isEqualTo(generated);
        WireClient.Packet ok = c.login("nat", "nat-pass", "mysql_native_password", null);
        assertThat(ok.payload()).isEqualTo(expectedOk("nat-pass", scramble, c.serverCertificate()));
        QueryResponse r = c.query("SELECT @@have_ssl");
        assertThat(((QueryResponse.Rows) r).resultSet().rows()).containsExactly(List.of("YES"));
      }
      assertThat(server.tlsLogins()).isEqualTo(1);
    }
  }

  @Test
  void afterAnAuthSwitchTheProofHashesTheGreetingsScrambleWhichTheSwitchRepeats() throws Exception {
    try (ReplicaServer server = start(config(MariadbSqlFlavor.INSTANCE).build());
        WireClient c = WireClient.connect(server.port())) {
      byte[] scramble = c.greeting().scramble();
      c.startTls(ReplicaServerTest.trustAll());
      // A MySQL 9 client starts with caching_sha2_password; the account's plugin is
      // mysql_native_password.
      WireClient.Packet ok = c.login("nat", "nat-pass", "caching_sha2_password", null);
      assertThat(c.steps()).containsExactly("switch mysql_native_password", "ok");
      assertThat(ok.payload()).isEqualTo(expectedOk("nat-pass", scramble, c.serverCertificate()));
    }
  }

  @Test
  void cachingSha2OverTlsAndNativeOverPlainTcpEndWithThePlainOk() {
    try (ReplicaServer server = start(config(MariadbSqlFlavor.INSTANCE).build())) {
      try (WireClient c = WireClient.connect(server.port())) {
        c.startTls(ReplicaServerTest.trustAll());
        assertThat(c.login("repl", "repl-pass", "caching_sha2_password", null).payload())
            .isEqualTo(PLAIN_OK);
      }
      try (WireClient c = WireClient.connect(server.port())) {
        assertThat(c.login("nat", "nat-pass", "mysql_native_password", null).payload())
            .isEqualTo(PLAIN_OK);
      }
      assertThat(server.tlsLogins()).isEqualTo(1);
    }
  }

  @Test
  void theOkIsTheSameForAClientThatAsksForSessionTracking() throws Exception {
    // The relay does not offer CLIENT_SESSION_TRACK; a MariaDB server stores the info
    // length-encoded either way.
    try (ReplicaServer server = start(config(MariadbSqlFlavor.INSTANCE).build());
        WireClient c =
            WireClient.connect(server.port())
                .withCapability(CapabilityFlags.CLIENT_SESSION_TRACK)) {
      assertThat(c.greeting().has(CapabilityFlags.CLIENT_SESSION_TRACK)).isFalse();
      byte[] scramble = c.greeting().scramble();
      c.startTls(ReplicaServerTest.trustAll());
      WireClient.Packet ok = c.login("nat", "nat-pass", "mysql_native_password", null);
      assertThat(ok.payload()).isEqualTo(expectedOk("nat-pass", scramble, c.serverCertificate()));
    }
  }

  @Test
  void aConfiguredCertificateWinsAndIsTheOneProved() throws Exception {
    GeneratedCertificate own = GeneratedCertificate.create(new SecureRandom(), Instant.now());
    Path cert =
        Files.writeString(
            dir.resolve("cert.pem"), pem("CERTIFICATE", own.certificate().getEncoded()));
    Path key =
        Files.writeString(
            dir.resolve("key.pem"), pem("PRIVATE KEY", own.privateKey().getEncoded()));
    try (ReplicaServer server =
            start(
                config(MariadbSqlFlavor.INSTANCE)
                    .tls(new ReplicaServerConfig.TlsFiles(cert, key))
                    .build());
        WireClient c = WireClient.connect(server.port())) {
      assertThat(server.tlsCertificate()).contains(own.certificate());
      byte[] scramble = c.greeting().scramble();
      c.startTls(ReplicaServerTest.trustAll());
      assertThat(c.serverCertificate()).isEqualTo(own.certificate());
      WireClient.Packet ok = c.login("nat", "nat-pass", "mysql_native_password", null);
      assertThat(ok.payload()).isEqualTo(expectedOk("nat-pass", scramble, own.certificate()));
    }
  }

  @Test
  void withoutGenerationNorFilesThereIsNoTls() {
    try (ReplicaServer server =
            start(config(MariadbSqlFlavor.INSTANCE).autoGenerateCertificate(false).build());
        WireClient c = WireClient.connect(server.port())) {
      assertThat(server.tlsCertificate()).isEmpty();
      assertThat(c.greeting().has(CapabilityFlags.CLIENT_SSL)).isFalse();
      c.login("nat", "nat-pass", "mysql_native_password", null);
      QueryResponse r = c.query("SELECT @@have_ssl");
      assertThat(((QueryResponse.Rows) r).resultSet().rows()).containsExactly(List.of("DISABLED"));
    }
    assertThatThrownBy(
            () ->
                config(MariadbSqlFlavor.INSTANCE)
                    .autoGenerateCertificate(false)
                    .requireSecureTransport(true)
                    .build())
        .hasMessageContaining("requireSecureTransport needs TLS");
  }

  @Test
  void requireSecureTransportWorksOverAGeneratedCertificate() {
    try (ReplicaServer server =
        start(config(MariadbSqlFlavor.INSTANCE).requireSecureTransport(true).build())) {
      try (WireClient c = WireClient.connect(server.port())) {
        assertThatThrownBy(() -> c.login("nat", "nat-pass", "mysql_native_password", null))
            .hasMessageContaining("3159");
      }
      try (WireClient c = WireClient.connect(server.port())) {
        c.startTls(ReplicaServerTest.trustAll())
            .login("nat", "nat-pass", "mysql_native_password", null);
      }
    }
  }

  /**
   * What a MariaDB 11.4+ server sends after the login: OK, 0 rows, id 0, autocommit, 0 warnings,
   * and the info length-encoded: 65 bytes, 0x01 then the upper-case hex of SHA-256(SHA1(SHA1(pw))
   * || scramble || SHA-256(DER)).
   */
  private static byte[] expectedOk(String password, byte[] scramble, X509Certificate certificate)
      throws Exception {
    MessageDigest sha1 = MessageDigest.getInstance("SHA-1");
    byte[] passwordHash = sha1.digest(sha1.digest(password.getBytes(StandardCharsets.UTF_8)));
    MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
    byte[] certificateDigest = sha256.digest(certificate.getEncoded());
    sha256.update(passwordHash);
    sha256.update(scramble);
    sha256.update(certificateDigest);
    byte[] hex =
        HexFormat.of()
            .withUpperCase()
            .formatHex(sha256.digest())
            .getBytes(StandardCharsets.US_ASCII);
    ByteArrayOutputStream ok = new ByteArrayOutputStream();
    ok.write(PLAIN_OK);
    ok.write(1 + hex.length);
    ok.write(0x01);
    ok.write(hex);
    return ok.toByteArray();
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }
}
