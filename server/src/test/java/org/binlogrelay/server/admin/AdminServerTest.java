package org.binlogrelay.server.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.binlogrelay.server.metrics.ReplicaView;
import org.binlogrelay.server.upstream.SourceSwitch;
import org.binlogrelay.server.upstream.UpstreamReplicator;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.read.ReaderRegistry;
import org.binlogrelay.storage.retention.RetentionRun;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The admin HTTP server's scheduling over raw sockets, with a relay whose {@code rotate} command
 * blocks until the test lets it go (or sleeps past the idle timeout): probes and scrapes are
 * answered while commands run, a connection is not closed for idleness while its request is in
 * work, pipelined requests are answered in order, HEAD carries the GET's length, and close waits
 * for the commands in work.
 */
@Timeout(60)
class AdminServerTest {
  private final CountDownLatch release = new CountDownLatch(1);
  private final CountDownLatch rotating = new CountDownLatch(2);
  private final CountDownLatch started = new CountDownLatch(1);
  private final AtomicBoolean rotateEnded = new AtomicBoolean();
  private volatile Duration rotateSleep;
  private AdminServer server;

  @AfterEach
  void stop() {
    release.countDown();
    if (server != null) {
      server.close();
    }
  }

  private void start(Duration idle, Duration command) {
    server =
        AdminServer.start(
            new AdminConfig(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                null,
                1024,
                idle,
                command),
            new AdminApi(new SlowRelay(), null));
  }

  private Socket connect() throws IOException {
    Socket s = new Socket(InetAddress.getLoopbackAddress(), server.address().getPort());
    s.setSoTimeout(30_000);
    return s;
  }

  private static void send(Socket s, String... requests) throws IOException {
    OutputStream out = s.getOutputStream();
    out.write(String.join("", requests).getBytes(StandardCharsets.US_ASCII));
    out.flush();
  }

  private static String request(String method, String path) {
    return method + " " + path + " HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n";
  }

  /**
   * One response: status line and headers, then as many body bytes as Content-Length says (none for
   * HEAD).
   */
  private static String[] read(Socket s, boolean head) throws IOException {
    InputStream in = s.getInputStream();
    ByteArrayOutputStream headers = new ByteArrayOutputStream();
    while (!headers.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("closed after " + headers.toString(StandardCharsets.US_ASCII));
      }
      headers.write(b);
    }
    String h = headers.toString(StandardCharsets.US_ASCII);
    int length = 0;
    for (String line : h.split("\r\n")) {
      if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
        length = Integer.parseInt(line.substring(15).strip());
      }
    }
    byte[] body = head ? new byte[0] : in.readNBytes(length);
    return new String[] {h, new String(body, StandardCharsets.UTF_8)};
  }

  @Test
  void probesAndScrapesAreAnsweredWhileEveryCommandWorkerWaits() throws Exception {
    start(Duration.ofSeconds(30), Duration.ofSeconds(20));
    try (Socket a = connect();
        Socket b = connect();
        Socket c = connect()) {
      send(a, request("POST", "/api/v1/binlogs/rotate"));
      send(b, request("POST", "/api/v1/binlogs/rotate"));
      assertThat(rotating.await(20, TimeUnit.SECONDS)).as("both command workers busy").isTrue();
      send(c, request("GET", "/health"), request("GET", "/ready"), request("GET", "/metrics"));
      assertThat(read(c, false)[1]).contains("\"UP\"");
      assertThat(read(c, false)[1]).contains("\"READY\"");
      assertThat(read(c, false)[1]).contains("relay_up 1");
      release.countDown();
      assertThat(read(a, false)[1]).contains("rotatedTo");
      assertThat(read(b, false)[1]).contains("rotatedTo");
    }
  }

  @Test
  void aCommandLongerThanTheIdleTimeoutStillGetsItsAnswer() throws Exception {
    start(Duration.ofMillis(500), Duration.ofMillis(400));
    rotateSleep = Duration.ofMillis(1500);
    release.countDown();
    try (Socket s = connect()) {
      send(s, request("POST", "/api/v1/binlogs/rotate"));
      String[] answer = read(s, false);
      assertThat(answer[0]).startsWith("HTTP/1.1 200");
      assertThat(answer[1]).contains("rotatedTo");
    }
  }

  @Test
  void pipelinedRequestsAreAnsweredInOrder() throws Exception {
    start(Duration.ofSeconds(30), Duration.ofSeconds(20));
    try (Socket s = connect()) {
      send(
          s,
          request("POST", "/api/v1/binlogs/rotate"),
          request("GET", "/health"),
          request("GET", "/metrics"));
      release.countDown();
      assertThat(read(s, false)[1]).contains("rotatedTo");
      assertThat(read(s, false)[1]).contains("\"UP\"");
      assertThat(read(s, false)[1]).contains("relay_up 1");
    }
  }

  @Test
  void headCarriesTheLengthOfTheGet() throws Exception {
    start(Duration.ofSeconds(30), Duration.ofSeconds(20));
    try (Socket s = connect()) {
      send(
          s,
          request("GET", "/metrics"),
          request("HEAD", "/metrics"),
          request("HEAD", "/health"),
          request("GET", "/health"));
      String[] get = read(s, false);
      String[] head = read(s, true);
      String[] headHealth = read(s, true);
      String[] getHealth = read(s, false);
      int length = get[1].getBytes(StandardCharsets.UTF_8).length;
      assertThat(length).isPositive();
      assertThat(head[0])
          .startsWith("HTTP/1.1 200")
          .containsIgnoringCase("content-length: " + length + "\r\n");
      assertThat(headHealth[0])
          .containsIgnoringCase(
              "content-length: " + getHealth[1].getBytes(StandardCharsets.UTF_8).length + "\r\n");
    }
  }

  @Test
  void closeWaitsForTheCommandsInWork() throws Exception {
    start(Duration.ofSeconds(30), Duration.ofSeconds(20));
    try (Socket s = connect()) {
      send(s, request("POST", "/api/v1/binlogs/rotate"));
      assertThat(started.await(20, TimeUnit.SECONDS)).isTrue();
      server.close();
      assertThat(rotateEnded).as("the command ended before close returned").isTrue();
    }
    server = null;
  }

  /**
   * A relay whose rotate waits for {@link #release} (interruptibly) or sleeps {@link #rotateSleep}.
   */
  private final class SlowRelay implements RelayControl {
    @Override
    public String rotate() throws ApiException {
      rotating.countDown();
      started.countDown();
      try {
        if (rotateSleep != null) {
          // The fault under test: a command slower (in real time) than the admin server's idle
          // timeout.
          Thread.sleep(rotateSleep.toMillis());
        } else if (!release.await(30, TimeUnit.SECONDS)) {
          throw new ApiException(503, "unavailable", "not released");
        }
        return "binlog.000002";
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ApiException(503, "unavailable", "interrupted");
      } finally {
        rotateEnded.set(true);
      }
    }

    @Override
    public String scrape() {
      return "# TYPE relay_up gauge\nrelay_up 1\n";
    }

    @Override
    public Optional<String> unhealthy() {
      return Optional.empty();
    }

    @Override
    public Optional<String> notReady() {
      return Optional.empty();
    }

    @Override
    public boolean primaryConfigured() {
      return true;
    }

    @Override
    public RelayFacts relay() {
      return new RelayFacts("RUNNING", "test", "mysql", 1, "uuid", null, 0, 0);
    }

    @Override
    public BinlogStore store() {
      return null;
    }

    @Override
    public ReaderRegistry readers() {
      return new ReaderRegistry();
    }

    @Override
    public Optional<UpstreamReplicator> upstream() {
      return Optional.empty();
    }

    @Override
    public List<ReplicaView> replicas() {
      return List.of();
    }

    @Override
    public boolean pause(long id) {
      return false;
    }

    @Override
    public Optional<Boolean> paused(long id) {
      return Optional.empty();
    }

    @Override
    public boolean resume(long id) {
      return false;
    }

    @Override
    public boolean kick(long id) {
      return false;
    }

    @Override
    public void stopUpstream() throws ApiException {
      throw ApiException.conflict("not here");
    }

    @Override
    public void startUpstream() throws ApiException {
      throw ApiException.conflict("not here");
    }

    @Override
    public SourceSwitch changeUpstream(String host, Integer port, String user, String password)
        throws ApiException {
      throw ApiException.conflict("not here");
    }

    @Override
    public RetentionRun purge(String to, Instant before, boolean force) throws ApiException {
      throw ApiException.conflict("not here");
    }
  }
}
