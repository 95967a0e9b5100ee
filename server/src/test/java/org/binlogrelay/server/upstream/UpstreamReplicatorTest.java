package org.binlogrelay.server.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.packet.ErrPacket;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.StoreConfig;
import org.binlogrelay.storage.Time;
import org.binlogrelay.storage.testing.ManualTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replicator's lifecycle against primaries that are not there or refuse it (loopback only);
 * with a {@link ManualTime}, the exact waits between its attempts, which follow the clock it was
 * given.
 */
class UpstreamReplicatorTest {
  private static final Backoff FAST = new Backoff(Duration.ofMillis(10), Duration.ofMillis(40), 0);

  @TempDir Path dir;
  private BinlogStore store;
  private final List<UpstreamState> seen = new ArrayList<>();

  @BeforeEach
  void open() throws IOException {
    store = BinlogStore.open(StoreConfig.builder(dir, GtidFlavor.MYSQL).build());
  }

  @AfterEach
  void close() throws IOException {
    store.close();
  }

  private UpstreamReplicator replicator(int port, Time time) {
    UpstreamConfig config =
        UpstreamConfig.builder("127.0.0.1", port, "repl", "pw")
            .serverId(77)
            .backoff(FAST)
            .connectTimeout(Duration.ofMillis(500))
            .build();
    UpstreamReplicator r = new UpstreamReplicator(config, store, time, () -> 0.5);
    r.addListener(
        s -> {
          synchronized (seen) {
            seen.add(s);
          }
        });
    return r;
  }

  private static int closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static UpstreamState await(UpstreamReplicator r, Predicate<UpstreamState> condition)
      throws Exception {
    return eventually(Duration.ofSeconds(10), "the replicator's state", r::state, condition);
  }

  @Test
  void retriesAnAbsentPrimaryWithGrowingAttemptsUntilStopped() throws Exception {
    UpstreamReplicator r = replicator(closedPort(), Time.SYSTEM);
    r.start();
    UpstreamState s = await(r, st -> st.attempt() >= 4);
    assertThat(s.lastError()).containsIgnoringCase("connection refused");
    assertThat(r.stop(Duration.ofSeconds(5))).isTrue();
    assertThat(r.state().status()).isEqualTo(UpstreamStatus.STOPPED);
    synchronized (seen) {
      assertThat(seen)
          .extracting(UpstreamState::status)
          .startsWith(
              UpstreamStatus.CONNECTING,
              UpstreamStatus.BACKING_OFF,
              UpstreamStatus.CONNECTING,
              UpstreamStatus.BACKING_OFF)
          .endsWith(UpstreamStatus.STOPPED);
      assertThat(seen)
          .filteredOn(st -> st.status() == UpstreamStatus.BACKING_OFF)
          .extracting(UpstreamState::attempt)
          .startsWith(1, 2, 3);
    }
  }

  @Test
  void aPrimaryThatRefusesConnectionsIsRetriedWithItsError() throws Exception {
    try (ServerSocket server = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
      Thread refuser =
          new Thread(
              () -> {
                while (!server.isClosed()) {
                  try (Socket s = server.accept();
                      OutputStream out = s.getOutputStream()) {
                    byte[] err = new ErrPacket(1040, "08004", "Too many connections").encode();
                    out.write(new byte[] {(byte) err.length, 0, 0, 0});
                    out.write(err);
                  } catch (IOException e) {
                    return;
                  }
                }
              });
      refuser.setDaemon(true);
      refuser.start();
      UpstreamReplicator r = replicator(server.getLocalPort(), Time.SYSTEM);
      r.start();
      UpstreamState s = await(r, st -> st.attempt() >= 2);
      assertThat(s.lastError())
          .contains("refused the connection")
          .contains("error 1040 (08004): Too many connections");
      r.close();
      assertThat(r.state().status()).isEqualTo(UpstreamStatus.STOPPED);
    }
  }

  @Test
  void aSilentPrimaryTimesOutAndIsRetried() throws Exception {
    try (ServerSocket server = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
      List<Socket> accepted = new ArrayList<>();
      Thread acceptor =
          new Thread(
              () -> {
                while (!server.isClosed()) {
                  try {
                    accepted.add(server.accept()); // and never say anything
                  } catch (IOException e) {
                    return;
                  }
                }
              });
      acceptor.setDaemon(true);
      acceptor.start();
      UpstreamReplicator r = replicator(server.getLocalPort(), Time.SYSTEM);
      r.start();
      UpstreamState s = await(r, st -> st.status() == UpstreamStatus.BACKING_OFF);
      assertThat(s.lastError()).containsIgnoringCase("timed out");
      r.close();
      for (Socket socket : accepted) {
        socket.close();
      }
    }
  }

  @Test
  void stopsPromptlyWhileConnecting() throws Exception {
    try (ServerSocket server = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
      UpstreamConfig config =
          UpstreamConfig.builder("127.0.0.1", server.getLocalPort(), "repl", "pw")
              .serverId(77)
              .connectTimeout(Duration.ofSeconds(60))
              .build();
      UpstreamReplicator r = new UpstreamReplicator(config, store);
      r.start();
      await(r, st -> st.status() == UpstreamStatus.CONNECTING);
      long t = System.nanoTime();
      assertThat(r.stop(Duration.ofSeconds(5))).isTrue();
      assertThat(Duration.ofNanos(System.nanoTime() - t)).isLessThan(Duration.ofSeconds(2));
      assertThat(r.state().status()).isEqualTo(UpstreamStatus.STOPPED);
    }
  }

  @Test
  void isOneShotAndStampsStateWithTheGivenClock() throws Exception {
    Time fixed =
        new Time() {
          @Override
          public long nanoseconds() {
            return 0;
          }

          @Override
          public long milliseconds() {
            return 123_456L;
          }
        };
    UpstreamReplicator r = replicator(closedPort(), fixed);
    assertThat(r.state().status()).isEqualTo(UpstreamStatus.NEW);
    assertThat(r.state().sinceMillis()).isEqualTo(123_456L);
    assertThat(r.stop(Duration.ofSeconds(1))).isTrue();
    assertThat(r.state().status()).isEqualTo(UpstreamStatus.STOPPED);
    UpstreamReplicator started = replicator(closedPort(), fixed);
    started.start();
    assertThatThrownBy(started::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("already");
    started.close();
  }

  @Test
  void aSwitchToAnUnreachableSourceIsRefusedAndTheReplicatorStaysOnItsSource() throws Exception {
    int first = closedPort();
    UpstreamReplicator r = replicator(first, Time.SYSTEM);
    assertThatThrownBy(() -> r.switchSource(r.config(), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("running replicator");
    r.start();
    await(r, st -> st.attempt() >= 1);
    UpstreamConfig other =
        UpstreamConfig.builder("127.0.0.1", closedPort(), "repl", "pw")
            .serverId(77)
            .backoff(FAST)
            .connectTimeout(Duration.ofMillis(500))
            .build();
    assertThatThrownBy(() -> r.switchSource(other, Duration.ofSeconds(10)))
        .isInstanceOf(SourceRefusedException.class)
        .hasMessageContaining("refused")
        .hasMessageContaining("stays with 127.0.0.1:" + first);
    assertThat(r.state().source()).isEqualTo("127.0.0.1:" + first);
    assertThat(r.config().port()).isEqualTo(first);
    await(
        r,
        st ->
            st.status() == UpstreamStatus.BACKING_OFF || st.status() == UpstreamStatus.CONNECTING);
    assertThat(r.stop(Duration.ofSeconds(5))).isTrue();
  }

  /**
   * A loopback server that answers every connection with {@code err} instead of a greeting, and
   * counts them.
   */
  private static final class Refuser implements AutoCloseable {
    final ServerSocket server;
    final AtomicInteger accepted = new AtomicInteger();

    Refuser(ErrPacket err) throws IOException {
      server = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
      Thread t =
          new Thread(
              () -> {
                while (!server.isClosed()) {
                  try (Socket s = server.accept();
                      OutputStream out = s.getOutputStream()) {
                    accepted.incrementAndGet();
                    byte[] payload = err.encode();
                    out.write(new byte[] {(byte) payload.length, 0, 0, 0});
                    out.write(payload);
                  } catch (IOException e) {
                    return;
                  }
                }
              },
              "refuser");
      t.setDaemon(true);
      t.start();
    }

    @Override
    public void close() throws IOException {
      server.close();
    }
  }

  private UpstreamReplicator withDefaultBackoff(int port, Time time) {
    UpstreamConfig config =
        UpstreamConfig.builder("127.0.0.1", port, "repl", "pw")
            .serverId(77)
            .connectTimeout(Duration.ofSeconds(2))
            .build();
    UpstreamReplicator r = new UpstreamReplicator(config, store, time, () -> 0);
    r.addListener(
        st -> {
          synchronized (seen) {
            seen.add(st);
          }
        });
    return r;
  }

  @Test
  void aPrimaryThatDeniesAccessIsRetriedWithGrowingWaitsOnTheGivenClockThenFails()
      throws Exception {
    ManualTime clock = new ManualTime(1_000_000L);
    try (Refuser refuser =
        new Refuser(
            new ErrPacket(
                1045,
                "28000",
                "Access denied for user 'repl'@'localhost' (using password: YES)"))) {
      UpstreamReplicator r = withDefaultBackoff(refuser.server.getLocalPort(), clock);
      r.start();
      long[] expected = {200, 400, 800, 1600};
      for (int i = 0; i < expected.length; i++) {
        Duration wait = clock.nextWait(Duration.ofSeconds(10));
        assertThat(wait).isEqualTo(Duration.ofMillis(expected[i]));
        assertThat(refuser.accepted.get()).isEqualTo(i + 1);
        UpstreamState backingOff = r.state();
        assertThat(backingOff.status()).isEqualTo(UpstreamStatus.BACKING_OFF);
        assertThat(backingOff.attempt()).isEqualTo(i + 1);
        clock.advance(wait);
      }
      UpstreamState failed = await(r, st -> st.status() == UpstreamStatus.FAILED);
      assertThat(failed.lastError())
          .contains("refused the connection: error 1045 (28000): Access denied")
          .contains("the same failure 5 times in a row");
      assertThat(failed.attempt()).isEqualTo(5);
      assertThat(refuser.accepted.get())
          .as("connections the primary saw")
          .isEqualTo(FailurePolicy.MAX_IDENTICAL_FAILURES);
      assertThat(clock.pendingWaits()).isZero();
      assertThat(r.ingestStats().failures())
          .containsEntry(IngestStats.FailureKind.PRIMARY_ERROR, 5L);
      assertThat(r.stop(Duration.ofSeconds(5))).isTrue();
      assertThat(r.state().status())
          .as("stop after FAILED keeps FAILED")
          .isEqualTo(UpstreamStatus.FAILED);
      synchronized (seen) {
        assertThat(seen)
            .extracting(UpstreamState::status)
            .endsWith(UpstreamStatus.CONNECTING, UpstreamStatus.FAILED)
            .filteredOn(st -> st == UpstreamStatus.FAILED)
            .hasSize(1);
      }
    }
  }

  @Test
  void anAbsentPrimaryIsRetriedForeverOnTheGivenClockAndStopEndsTheWait() throws Exception {
    ManualTime clock = new ManualTime(0);
    UpstreamReplicator r = withDefaultBackoff(closedPort(), clock);
    r.start();
    List<Long> waits = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      Duration wait = clock.nextWait(Duration.ofSeconds(10));
      waits.add(wait.toMillis());
      clock.advance(wait);
    }
    assertThat(waits)
        .containsExactly(
            200L, 400L, 800L, 1600L, 3200L, 6400L, 12800L, 25600L, 30000L, 30000L, 30000L, 30000L);
    clock.nextWait(Duration.ofSeconds(10));
    assertThat(r.state().status()).isEqualTo(UpstreamStatus.BACKING_OFF);
    assertThat(r.state().attempt()).isEqualTo(13);
    assertThat(r.stop(Duration.ofSeconds(5)))
        .as("stop wakes the wait on the manual clock")
        .isTrue();
    assertThat(r.state().status()).isEqualTo(UpstreamStatus.STOPPED);
  }
}
