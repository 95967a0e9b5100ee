package org.binlogrelay.server.downstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.binlogrelay.protocol.handshake.CapabilityFlags;
import org.binlogrelay.protocol.query.QueryResponse;
import org.binlogrelay.protocol.testing.WireClient;
import org.binlogrelay.server.downstream.sql.BinlogListing;
import org.binlogrelay.server.downstream.sql.MysqlSqlFlavor;
import org.binlogrelay.storage.Time;
import org.binlogrelay.storage.testing.ManualTime;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server on a real loopback socket: binding, TLS with a PEM certificate, RSA, limits, closing.
 */
class ReplicaServerTest {
  @TempDir static Path dir;
  private static ReplicaServerConfig.TlsFiles tls;

  @BeforeAll
  static void certificate() throws Exception {
    Path cert = dir.resolve("cert.pem");
    Path key = dir.resolve("key.pem");
    Process p =
        new ProcessBuilder(
                "openssl",
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-keyout",
                key.toString(),
                "-out",
                cert.toString(),
                "-days",
                "2",
                "-subj",
                "/CN=relay-test")
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("openssl.log").toFile())
            .start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("openssl finished").isTrue();
    assertThat(p.exitValue())
        .as("openssl req -x509: " + Files.readString(dir.resolve("openssl.log")))
        .isZero();
    tls = new ReplicaServerConfig.TlsFiles(cert, key);
  }

  private static ReplicaServerConfig.Builder config() {
    return TestServers.config(MysqlSqlFlavor.INSTANCE)
        .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
        .ioThreads(1);
  }

  private static ReplicaServer start(ReplicaServerConfig config) {
    return start(config, Time.SYSTEM);
  }

  private static ReplicaServer start(ReplicaServerConfig config, Time time) {
    return ReplicaServer.start(config, new RefusingDumpHandler(), BinlogListing.EMPTY, time);
  }

  @Test
  void tlsThenCachingSha2FullAuthenticationInClearTextThenFastPathWithoutTls() {
    try (ReplicaServer server = start(config().tls(tls).build())) {
      assertThat(server.address().getAddress().isLoopbackAddress()).isTrue();
      try (WireClient c = WireClient.connect(server.port())) {
        assertThat(c.greeting().has(CapabilityFlags.CLIENT_SSL)).isTrue();
        c.startTls(trustAll()).login("repl", "repl-pass", "caching_sha2_password", null);
        assertThat(c.steps()).containsExactly("full", "ok");
        QueryResponse r = c.query("SELECT @@version, @@have_ssl");
        assertThat(((QueryResponse.Rows) r).resultSet().rows())
            .containsExactly(List.of("8.4.0-binlog-relay", "YES"));
      }
      try (WireClient c = WireClient.connect(server.port())) {
        c.login("repl", "repl-pass", "caching_sha2_password", null);
        assertThat(c.steps()).containsExactly("fast ok", "ok");
      }
    }
  }

  @Test
  void rsaFullAuthenticationOverPlainTcp() {
    try (ReplicaServer server = start(config().build());
        WireClient c = WireClient.connect(server.port())) {
      c.login("repl", "repl-pass", "caching_sha2_password", null);
      assertThat(c.steps()).containsExactly("full", "public key", "ok");
    }
  }

  @Test
  void requireSecureTransportRefusesPlainLogins() {
    try (ReplicaServer server = start(config().tls(tls).requireSecureTransport(true).build())) {
      try (WireClient c = WireClient.connect(server.port())) {
        assertThatThrownBy(() -> c.login("nat", "nat-pass", "mysql_native_password", null))
            .hasMessageContaining("3159")
            .hasMessageContaining("require_secure_transport");
      }
      try (WireClient c = WireClient.connect(server.port())) {
        assertThatThrownBy(() -> c.login("nat", "wrong", "mysql_native_password", null))
            .as("the password is checked first, as by MySQL")
            .hasMessageContaining("1045");
      }
      try (WireClient c = WireClient.connect(server.port())) {
        assertThatThrownBy(() -> c.login("repl", "repl-pass", "caching_sha2_password", null))
            .as("after RSA full authentication")
            .hasMessageContaining("3159");
      }
      try (WireClient c = WireClient.connect(server.port())) {
        c.startTls(trustAll()).login("nat", "nat-pass", "mysql_native_password", null);
      }
    }
  }

  @Test
  void connectionsAreCountedAndClosedWithTheServer() throws Exception {
    ReplicaServer server = start(config().maxConnections(2).build());
    WireClient a = WireClient.connect(server.port());
    WireClient b = WireClient.connect(server.port());
    assertThatThrownBy(() -> WireClient.connect(server.port())).hasMessageContaining("1040");
    assertThat(server.refusedOverMaxConnections()).isEqualTo(1);
    assertThat(server.refusedOverHostRate()).isZero();
    a.close();
    eventually(
        Duration.ofSeconds(10),
        "the closed connection forgotten",
        () -> server.openConnections() <= 1);
    WireClient c = WireClient.connect(server.port());
    server.close();
    assertThat(b.receiveOrNull()).as("connections close with the server").isNull();
    c.close();
    b.close();
    assertThatThrownBy(() -> WireClient.connect(server.port()))
        .isInstanceOf(RuntimeException.class);
  }

  @Test
  void aHostOverItsConnectionRateGets1040BeforeTheGreeting() throws Exception {
    // 1 a second, bursts of 10: the 11th connection in a row is refused, whatever the open count.
    ManualTime time = new ManualTime(System.currentTimeMillis());
    ReplicaServer server = start(config().maxConnectRatePerHost(1).build(), time);
    for (int i = 0; i < HostConnectRate.BURST_SECONDS; i++) {
      WireClient.connect(server.port()).close();
    }
    assertThatThrownBy(() -> WireClient.connect(server.port()))
        .hasMessageContaining("1040")
        .hasMessageContaining("Too many connections");
    assertThat(server.refusedOverHostRate()).isEqualTo(1);
    assertThat(server.refusedOverMaxConnections()).isZero();
    // A second later (on the server's clock, moved by hand) the host may connect again.
    time.advance(Duration.ofSeconds(1));
    WireClient.connect(server.port()).close();
    server.close();
  }

  @Test
  void badKeyFilesAndBusyPortsAreReportedWithTheirNames() throws IOException {
    Path bogus = Files.writeString(dir.resolve("bogus.pem"), "not a key");
    assertThatThrownBy(
            () ->
                start(
                    config()
                        .tls(new ReplicaServerConfig.TlsFiles(tls.certificateChain(), bogus))
                        .build()))
        .hasMessageContaining("bogus.pem");
    assertThatThrownBy(() -> start(config().rsaPrivateKey(bogus).build()))
        .hasMessageContaining("bogus.pem");
    try (ReplicaServer first = start(config().build())) {
      assertThatThrownBy(() -> start(config().bind(first.address()).build()))
          .hasMessageContaining("Cannot listen on");
    }
  }

  static SSLContext trustAll() {
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(
          null,
          new TrustManager[] {
            new X509TrustManager() {
              @Override
              public void checkClientTrusted(X509Certificate[] chain, String authType) {}

              @Override
              public void checkServerTrusted(X509Certificate[] chain, String authType) {}

              @Override
              public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
              }
            }
          },
          null);
      return context;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
