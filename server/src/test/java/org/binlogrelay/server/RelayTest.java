package org.binlogrelay.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.binlogrelay.protocol.testing.Eventually.eventually;
import static org.binlogrelay.server.FlavorDetectionTest.config;
import static org.binlogrelay.server.FlavorDetectionTest.primaryAt;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.server.upstream.UpstreamStatus;
import org.binlogrelay.storage.Time;
import org.binlogrelay.storage.retention.RetentionPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The composition root with real parts: store in a temporary directory, server on a free loopback
 * port.
 */
@Timeout(60)
class RelayTest {
  @TempDir Path dir;

  private static int closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static boolean accepts(InetSocketAddress address) {
    try (Socket s = new Socket()) {
      s.connect(address, 1000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  @Test
  void servesTheStoreWithoutAPrimaryAndClosesInOrder() throws Exception {
    Relay relay =
        new Relay(
            config(dir.resolve("data"), GtidFlavor.MARIADB, null, Duration.ZERO), Time.SYSTEM);
    assertThat(relay.state()).isEqualTo(Relay.State.NEW);
    relay.start();
    try {
      assertThat(relay.state()).isEqualTo(Relay.State.RUNNING);
      assertThat(relay.flavor().flavor()).isEqualTo(GtidFlavor.MARIADB);
      assertThat(relay.store().directory()).isEqualTo(dir.resolve("data"));
      assertThat(Files.isDirectory(dir.resolve("data"))).isTrue();
      assertThat(relay.upstream()).isEmpty();
      assertThat(relay.retention()).as("no limit configured").isEmpty();
      assertThat(relay.readers()).isNotNull();
      InetSocketAddress address = relay.replicaServer().address();
      assertThat(address.getPort()).isPositive();
      assertThat(
              PrimaryGreeting.serverVersion(
                  new HostPort("127.0.0.1", address.getPort()), Duration.ofSeconds(5)))
          .as("the relay greets as a MariaDB server")
          .contains("MariaDB");
      assertThatThrownBy(relay::start)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("already");
    } finally {
      relay.close();
    }
    assertThat(relay.state()).isEqualTo(Relay.State.CLOSED);
    assertThat(relay.closedCleanly()).isTrue();
    assertThat(relay.awaitClosed(Duration.ZERO)).isTrue();
    assertThat(relay.store().readable().isStopped()).isTrue();
    assertThat(accepts(relay.replicaServer().address())).isFalse();
    relay.close(); // idempotent
  }

  @Test
  void followsAnUnreachablePrimaryByRetryingAndStopsPromptly() throws Exception {
    Relay relay =
        new Relay(
            config(dir, GtidFlavor.MYSQL, primaryAt(closedPort()), Duration.ZERO), Time.SYSTEM);
    relay.start();
    try {
      assertThat(relay.upstream()).isPresent();
      eventually(
          Duration.ofSeconds(20),
          "the upstream backing off",
          () -> relay.upstream().get().state().status(),
          status -> status == UpstreamStatus.BACKING_OFF);
      assertThat(relay.upstream().get().state().status()).isEqualTo(UpstreamStatus.BACKING_OFF);
      assertThat(relay.upstream().get().state().lastError()).isNotBlank();
    } finally {
      long started = System.nanoTime();
      relay.close();
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
    }
    assertThat(relay.upstream().get().state().status()).isEqualTo(UpstreamStatus.STOPPED);
    assertThat(relay.closedCleanly()).isTrue();
  }

  @Test
  void aClosedRelayStartsNoReplicatorAndNoPurge() throws Exception {
    Relay relay =
        new Relay(
            config(dir, GtidFlavor.MYSQL, primaryAt(closedPort()), Duration.ZERO), Time.SYSTEM);
    relay.start();
    assertThat(relay.stopUpstream(Duration.ofSeconds(10))).isTrue();
    relay.close();
    var stopped = relay.upstream().orElseThrow();
    assertThatThrownBy(relay::startUpstream)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    assertThatThrownBy(() -> relay.changeUpstream(primaryAt(closedPort()), Duration.ofSeconds(5)))
        .as("a change with the replicator STOPPED would start a new one")
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    assertThatThrownBy(() -> relay.purge("binlog.000001", false))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    assertThat(relay.upstream()).containsSame(stopped);
    assertThat(stopped.state().status()).isEqualTo(UpstreamStatus.STOPPED);
  }

  @Test
  void aTakenReplicaPortFailsTheStartAndReleasesTheStore() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      RelayConfig base = config(dir, GtidFlavor.MYSQL, null, Duration.ZERO);
      RelayConfig clash =
          new RelayConfig(
              base.dataDir(),
              base.flavor(),
              base.syncPolicy(),
              base.retention(),
              base.retentionInterval(),
              null,
              new DownstreamSettings(
                  new InetSocketAddress(InetAddress.getLoopbackAddress(), taken.getLocalPort()),
                  9001,
                  base.downstream().serverUuid(),
                  base.downstream().accounts(),
                  null,
                  false),
              base.detectionTimeout());
      Relay relay = new Relay(clash, Time.SYSTEM);
      assertThatThrownBy(relay::start)
          .isInstanceOf(RelayStartException.class)
          .hasMessageContaining(String.valueOf(taken.getLocalPort()))
          .hasMessageContaining("choose another --port or --bind-address");
      assertThat(relay.state()).isEqualTo(Relay.State.CLOSED);
      assertThat(relay.store().readable().isStopped())
          .as("the store opened before the failure is closed again")
          .isTrue();
    }
    Relay again = new Relay(config(dir, GtidFlavor.MYSQL, null, Duration.ZERO), Time.SYSTEM);
    again.start();
    again.close();
    assertThat(again.closedCleanly()).isTrue();
  }

  @Test
  void retentionRunsWhenALimitIsSet() throws Exception {
    RelayConfig base = config(dir, GtidFlavor.MYSQL, null, Duration.ZERO);
    RelayConfig withLimit =
        new RelayConfig(
            base.dataDir(),
            base.flavor(),
            base.syncPolicy(),
            RetentionPolicy.keepEverything().withMaxFiles(3),
            Duration.ofHours(1),
            null,
            base.downstream(),
            base.detectionTimeout());
    try (Relay relay = new Relay(withLimit, Time.SYSTEM)) {
      relay.start();
      assertThat(relay.retention()).isPresent();
      eventually(
          Duration.ofSeconds(10), "a retention run", () -> relay.retention().get().runs() > 0);
      assertThat(relay.retention().get().runs()).as("a first run at start").isEqualTo(1);
    }
  }

  @Test
  void aCloseDuringTheFlavourDetectionEndsTheStart() throws Exception {
    Relay relay =
        new Relay(config(dir, null, primaryAt(closedPort()), Duration.ofMinutes(5)), Time.SYSTEM);
    CompletableFuture<Throwable> start =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                relay.start();
                return null;
              } catch (Throwable t) {
                return t;
              }
            });
    eventually(
        Duration.ofSeconds(10),
        "the relay starting",
        relay::state,
        state -> state == Relay.State.STARTING);
    // Not a wait for a condition: lets the detection make a few attempts so that the close lands
    // mid-detection (a
    // close must end the start at any point).
    Thread.sleep(200);
    relay.close();
    Throwable failure = start.get(10, TimeUnit.SECONDS);
    assertThat(failure).isInstanceOf(RelayStartException.class).hasMessageContaining("stopped");
    assertThat(relay.state()).isEqualTo(Relay.State.CLOSED);
    assertThat(relay.store()).as("nothing was opened").isNull();
  }

  @Test
  void theRelayMovesOnlyAlongItsLife() {
    assertThat(Relay.State.NEW.canMoveTo(Relay.State.STARTING)).isTrue();
    assertThat(Relay.State.NEW.canMoveTo(Relay.State.CLOSING))
        .as("a close before the start")
        .isTrue();
    assertThat(Relay.State.STARTING.canMoveTo(Relay.State.CLOSED)).as("a failed start").isTrue();
    assertThat(Relay.State.RUNNING.canMoveTo(Relay.State.STARTING)).isFalse();
    assertThat(Relay.State.CLOSING.canMoveTo(Relay.State.RUNNING)).isFalse();
    for (Relay.State s : Relay.State.values()) {
      assertThat(Relay.State.CLOSED.canMoveTo(s)).as("CLOSED -> " + s).isFalse();
    }
    assertThatThrownBy(Relay.State.CLOSING::requireRunning)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("the relay is closing");
    Relay.State.RUNNING.requireRunning();
  }

  @Test
  void aRelayClosedBeforeItStartedCannotStart() {
    Relay relay = new Relay(config(dir, GtidFlavor.MYSQL, null, Duration.ZERO), Time.SYSTEM);
    relay.close();
    assertThat(relay.state()).isEqualTo(Relay.State.CLOSED);
    assertThatThrownBy(relay::start).isInstanceOf(IllegalStateException.class);
  }
}
