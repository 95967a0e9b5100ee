package org.binlogrelay.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.binlogrelay.server.FlavorDetectionTest.primaryAt;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.server.metrics.UpstreamSuccession;
import org.binlogrelay.server.upstream.UpstreamConfig;
import org.binlogrelay.server.upstream.UpstreamReplicator;
import org.binlogrelay.server.upstream.UpstreamStatus;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.StoreConfig;
import org.binlogrelay.storage.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link UpstreamControl}'s states and commands, with a real store in a temporary directory and a
 * primary on a loopback port nobody listens on (the replicators back off; only their start and stop
 * matter here).
 */
@Timeout(60)
class UpstreamControlTest {
  @TempDir Path dir;

  private BinlogStore store;
  private final AtomicReference<Relay.State> relay = new AtomicReference<>(Relay.State.STARTING);
  private final UpstreamSuccession succession = new UpstreamSuccession();

  @BeforeEach
  void openStore() throws Exception {
    store = BinlogStore.open(StoreConfig.builder(dir, GtidFlavor.MYSQL).build());
  }

  @AfterEach
  void closeStore() throws IOException {
    store.close();
  }

  private static int closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private UpstreamControl control(UpstreamConfig configured) {
    return new UpstreamControl(configured, Time.SYSTEM, succession, relay::get);
  }

  @Test
  void withoutAPrimaryEveryCommandIsRefused() throws Exception {
    UpstreamControl control = control(null);
    assertThat(control.state()).isEqualTo(UpstreamControl.State.NO_PRIMARY);
    control.follow(store);
    relay.set(Relay.State.RUNNING);
    assertThat(control.replicator()).isEmpty();
    assertThat(control.config()).isNull();
    assertThatThrownBy(() -> control.stop(Duration.ofSeconds(1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("no primary is configured");
    assertThatThrownBy(control::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("no primary is configured");
    assertThatThrownBy(() -> control.change(primaryAt(closedPort()), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("no primary is configured");
    control.close();
    assertThat(control.state()).isEqualTo(UpstreamControl.State.CLOSED);
  }

  @Test
  void stopStartChangeAndCloseMoveThroughTheStates() throws Exception {
    UpstreamConfig first = primaryAt(closedPort());
    UpstreamControl control = control(first);
    assertThat(control.state()).isEqualTo(UpstreamControl.State.NOT_STARTED);
    assertThat(control.replicator()).isEmpty();
    assertThatThrownBy(() -> control.stop(Duration.ofSeconds(1)))
        .as("nothing followed yet")
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("no primary is configured");

    control.follow(store);
    assertThat(control.state()).isEqualTo(UpstreamControl.State.FOLLOWING);
    UpstreamReplicator followed = control.replicator().orElseThrow();
    assertThat(succession.get()).containsSame(followed);
    assertThatThrownBy(control::start)
        .as("the relay is still starting")
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("the relay is starting");
    relay.set(Relay.State.RUNNING);
    assertThatThrownBy(control::start)
        .as("the replicator runs")
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("stop it first");

    assertThat(control.stop(Duration.ofSeconds(10))).isTrue();
    assertThat(control.state()).isEqualTo(UpstreamControl.State.STOPPED);
    assertThat(followed.state().status()).isEqualTo(UpstreamStatus.STOPPED);
    assertThat(control.stop(Duration.ofSeconds(10))).as("idempotent").isTrue();
    assertThat(control.state()).isEqualTo(UpstreamControl.State.STOPPED);

    control.start();
    assertThat(control.state()).isEqualTo(UpstreamControl.State.FOLLOWING);
    UpstreamReplicator again = control.replicator().orElseThrow();
    assertThat(again).as("a replicator is one-shot: a new one").isNotSameAs(followed);
    assertThat(again.config()).isEqualTo(first);
    assertThat(succession.get()).containsSame(again);

    control.stop(Duration.ofSeconds(10));
    UpstreamConfig second = primaryAt(closedPort());
    assertThat(control.change(second, Duration.ofSeconds(5)))
        .as("a stopped replicator: a new one, no switch")
        .isNull();
    assertThat(control.state()).isEqualTo(UpstreamControl.State.FOLLOWING);
    assertThat(control.config()).isEqualTo(second);
    assertThat(control.replicator().orElseThrow().config()).isEqualTo(second);

    relay.set(Relay.State.CLOSING);
    UpstreamReplicator last = control.replicator().orElseThrow();
    assertThatThrownBy(control::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("the relay is closing");
    control.close();
    assertThat(control.state()).isEqualTo(UpstreamControl.State.CLOSED);
    assertThat(last.state().status()).isEqualTo(UpstreamStatus.STOPPED);
    assertThat(control.stop(Duration.ofSeconds(1)))
        .as("a stop after the close changes nothing")
        .isTrue();
    assertThat(control.state()).isEqualTo(UpstreamControl.State.CLOSED);
    control.close();
    relay.set(Relay.State.CLOSED);
    assertThatThrownBy(() -> control.change(primaryAt(closedPort()), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("the relay is closed");
    assertThat(control.replicator()).containsSame(last);
  }

  @Test
  void onlyTheDrawnMovesAreAllowed() {
    assertThat(UpstreamControl.State.NO_PRIMARY.canMoveTo(UpstreamControl.State.FOLLOWING))
        .isFalse();
    assertThat(UpstreamControl.State.NOT_STARTED.canMoveTo(UpstreamControl.State.STOPPED))
        .isFalse();
    assertThat(UpstreamControl.State.STOPPED.canMoveTo(UpstreamControl.State.FOLLOWING)).isTrue();
    assertThat(UpstreamControl.State.FOLLOWING.canMoveTo(UpstreamControl.State.FOLLOWING)).isTrue();
    for (UpstreamControl.State s : UpstreamControl.State.values()) {
      assertThat(s.canMoveTo(UpstreamControl.State.CLOSED))
          .as(s + " -close->")
          .isEqualTo(s != UpstreamControl.State.CLOSED);
      assertThat(UpstreamControl.State.CLOSED.canMoveTo(s)).as("CLOSED -> " + s).isFalse();
    }
  }
}
