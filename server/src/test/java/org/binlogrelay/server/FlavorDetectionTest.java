package org.binlogrelay.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.handshake.CapabilityFlags;
import org.binlogrelay.protocol.handshake.HandshakeV10;
import org.binlogrelay.protocol.packet.ErrPacket;
import org.binlogrelay.server.downstream.account.UserAccounts;
import org.binlogrelay.server.upstream.UpstreamConfig;
import org.binlogrelay.storage.SyncPolicy;
import org.binlogrelay.storage.Time;
import org.binlogrelay.storage.retention.RetentionPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How the relay learns its flavour: the option, the stored files, the primary's greeting. */
class FlavorDetectionTest {
  @TempDir Path dir;

  private final CountDownLatch stop = new CountDownLatch(1);

  static RelayConfig config(
      Path dataDir, GtidFlavor flavor, UpstreamConfig upstream, Duration detectionTimeout) {
    DownstreamSettings downstream =
        new DownstreamSettings(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            9001,
            UpstreamConfig.defaultReplicaUuid(9001).toString(),
            new UserAccounts(List.of()),
            null,
            false);
    return new RelayConfig(
        dataDir,
        flavor,
        SyncPolicy.everyTransaction(),
        RetentionPolicy.keepEverything(),
        Duration.ofMinutes(1),
        upstream,
        downstream,
        detectionTimeout);
  }

  static UpstreamConfig primaryAt(int port) {
    return UpstreamConfig.builder("127.0.0.1", port, "repl", "pw")
        .serverId(9001)
        .connectTimeout(Duration.ofSeconds(2))
        .build();
  }

  /**
   * A FORMAT_DESCRIPTION as the start of a binlog file: magic, 19-byte header, binlog version,
   * server version.
   */
  static void writeBinlogStart(Path file, String serverVersion) throws IOException {
    byte[] b = new byte[4 + 19 + 2 + 50 + 20];
    b[0] = (byte) 0xfe;
    b[1] = 0x62;
    b[2] = 0x69;
    b[3] = 0x6e;
    b[4 + 4] = 15;
    b[4 + 19] = 4;
    byte[] v = serverVersion.getBytes(StandardCharsets.ISO_8859_1);
    System.arraycopy(v, 0, b, 4 + 19 + 2, v.length);
    Files.write(file, b);
  }

  /** Answers each connection with one packet, then closes it. */
  static ServerSocket fakePrimary(byte[] payload) throws IOException {
    ServerSocket server = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
    Thread t =
        new Thread(
            () -> {
              while (!server.isClosed()) {
                try (Socket s = server.accept();
                    OutputStream out = s.getOutputStream()) {
                  out.write(
                      new byte[] {
                        (byte) payload.length,
                        (byte) (payload.length >> 8),
                        (byte) (payload.length >> 16),
                        0
                      });
                  out.write(payload);
                  out.flush();
                } catch (IOException e) {
                  return;
                }
              }
            },
            "fake-primary");
    t.setDaemon(true);
    t.start();
    return server;
  }

  static byte[] greeting(String version) {
    return new HandshakeV10(
            version,
            7,
            new byte[20],
            CapabilityFlags.CLIENT_PROTOCOL_41
                | CapabilityFlags.CLIENT_SECURE_CONNECTION
                | CapabilityFlags.CLIENT_PLUGIN_AUTH,
            45,
            2,
            "mysql_native_password")
        .encode();
  }

  @Test
  void theOptionWins() throws Exception {
    writeBinlogStart(dir.resolve("binlog.000001"), "10.11.6-MariaDB-log");
    FlavorDetection d =
        FlavorDetection.detect(
            config(dir, GtidFlavor.MYSQL, null, Duration.ZERO), Time.SYSTEM, stop);
    assertThat(d.flavor()).isEqualTo(GtidFlavor.MYSQL);
    assertThat(d.source()).isEqualTo("--flavor");
  }

  @Test
  void theStoredFilesNameTheirServerNewestFirst() throws Exception {
    writeBinlogStart(dir.resolve("mariadb-bin.000001"), "10.11.6-MariaDB-log");
    Files.write(dir.resolve("mariadb-bin.000002"), new byte[] {(byte) 0xfe, 0x62}); // torn: skipped
    Files.writeString(
        dir.resolve("mariadb-bin.index"), "./mariadb-bin.000001\n./mariadb-bin.000002\n");
    FlavorDetection d =
        FlavorDetection.detect(config(dir, null, primaryAt(1), Duration.ZERO), Time.SYSTEM, stop);
    assertThat(d.flavor()).isEqualTo(GtidFlavor.MARIADB);
    assertThat(d.serverVersion()).isEqualTo("10.11.6-MariaDB-log");
    assertThat(d.source()).contains("stored binlog files").contains("10.11.6-MariaDB-log");

    Path mysqlDir = Files.createDirectory(dir.resolve("mysql"));
    writeBinlogStart(mysqlDir.resolve("binlog.000003"), "9.7.0");
    assertThat(
            FlavorDetection.detect(config(mysqlDir, null, null, Duration.ZERO), Time.SYSTEM, stop)
                .flavor())
        .as("without an index, files named like binlogs")
        .isEqualTo(GtidFlavor.MYSQL);
  }

  @Test
  void thePrimarysGreetingForAnEmptyStore() throws Exception {
    try (ServerSocket mariadb = fakePrimary(greeting("5.5.5-10.11.19-MariaDB-0+deb12u1-log"));
        ServerSocket mysql = fakePrimary(greeting("9.7.0"))) {
      FlavorDetection d =
          FlavorDetection.detect(
              config(dir.resolve("a"), null, primaryAt(mariadb.getLocalPort()), Duration.ZERO),
              Time.SYSTEM,
              stop);
      assertThat(d.flavor()).isEqualTo(GtidFlavor.MARIADB);
      assertThat(d.serverVersion()).isEqualTo("5.5.5-10.11.19-MariaDB-0+deb12u1-log");
      assertThat(d.source()).contains("greeting of primary 127.0.0.1:" + mariadb.getLocalPort());
      assertThat(
              FlavorDetection.detect(
                      config(
                          dir.resolve("b"), null, primaryAt(mysql.getLocalPort()), Duration.ZERO),
                      Time.SYSTEM,
                      stop)
                  .flavor())
          .isEqualTo(GtidFlavor.MYSQL);
    }
  }

  @Test
  void aPrimaryThatRefusesOrIsAbsentFailsWithWhatToDo() throws Exception {
    try (ServerSocket refusing =
        fakePrimary(new ErrPacket(1040, "08004", "Too many connections").encode())) {
      assertThatThrownBy(
              () ->
                  FlavorDetection.detect(
                      config(dir, null, primaryAt(refusing.getLocalPort()), Duration.ZERO),
                      Time.SYSTEM,
                      stop))
          .isInstanceOf(RelayStartException.class)
          .hasMessageContaining(
              "primary 127.0.0.1:"
                  + refusing.getLocalPort()
                  + " refused the connection: error 1040:"
                  + " Too many connections")
          .hasMessageContaining("pass --flavor=mysql|mariadb");
    }
    int closedPort;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = s.getLocalPort();
    }
    assertThatThrownBy(
            () ->
                FlavorDetection.detect(
                    config(dir, null, primaryAt(closedPort), Duration.ZERO), Time.SYSTEM, stop))
        .hasMessageContaining("cannot connect to primary 127.0.0.1:" + closedPort)
        .hasMessageContaining("gave up after 1 attempts");
    try (ServerSocket http =
        fakePrimary("HTTP/1.1 400 Bad Request".getBytes(StandardCharsets.US_ASCII))) {
      assertThatThrownBy(
              () ->
                  FlavorDetection.detect(
                      config(dir, null, primaryAt(http.getLocalPort()), Duration.ZERO),
                      Time.SYSTEM,
                      stop))
          .hasMessageContaining("is --primary the MySQL/MariaDB port?");
    }
  }

  @Test
  void nothingToGoByIsRefused() {
    assertThatThrownBy(
            () -> FlavorDetection.detect(config(dir, null, null, Duration.ZERO), Time.SYSTEM, stop))
        .isInstanceOf(RelayStartException.class)
        .hasMessageContaining("cannot tell whether to act as MySQL or MariaDB")
        .hasMessageContaining("pass --primary HOST:PORT");
  }

  @Test
  void aStopEndsTheWaitForThePrimary() throws Exception {
    int closedPort;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = s.getLocalPort();
    }
    stop.countDown();
    long started = System.nanoTime();
    assertThatThrownBy(
            () ->
                FlavorDetection.detect(
                    config(dir, null, primaryAt(closedPort), Duration.ofMinutes(5)),
                    Time.SYSTEM,
                    stop))
        .hasMessageContaining("stopped while waiting for primary");
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
  }
}
