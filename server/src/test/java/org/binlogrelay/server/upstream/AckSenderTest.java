package org.binlogrelay.server.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.storage.Position;
import org.junit.jupiter.api.Test;

/**
 * Acks leave only once the store says the transaction is durable; newest wins; failures are kept,
 * never acked.
 */
class AckSenderTest {
  private final List<Position> sent = new CopyOnWriteArrayList<>();
  private final IngestCounters counters = new IngestCounters();

  private AckSender sender(CountDownLatch each) {
    return new AckSender(
            payload -> {
              long pos = 0;
              for (int i = 8; i >= 1; i--) {
                pos = pos << 8 | (payload[i] & 0xff);
              }
              sent.add(
                  new Position(
                      new String(payload, 9, payload.length - 9, StandardCharsets.UTF_8), pos));
              each.countDown();
            },
            "primary:3306",
            counters)
        .start();
  }

  @Test
  void sendsNothingBeforeTheStoreSaysDurable() throws Exception {
    CountDownLatch one = new CountDownLatch(1);
    CompletableFuture<Position> durable = new CompletableFuture<>();
    try (AckSender s = sender(one)) {
      s.ackWhenDurable(new Position("binlog.000001", 500), durable);
      assertThat(one.await(200, TimeUnit.MILLISECONDS)).as("no ack while not durable").isFalse();
      assertThat(sent).isEmpty();
      durable.complete(new Position("binlog.000001", 500));
      assertThat(one.await(5, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(sent).containsExactly(new Position("binlog.000001", 500));
    assertThat(counters.acksRequested).isEqualTo(1);
    assertThat(counters.acksSent).isEqualTo(1);
    assertThat(counters.lastAck).isEqualTo(new Position("binlog.000001", 500));
  }

  @Test
  void neverSendsAnOlderPositionAfterANewerOne() throws Exception {
    CountDownLatch twoSends = new CountDownLatch(2);
    CompletableFuture<Position> first = new CompletableFuture<>();
    CompletableFuture<Position> second = new CompletableFuture<>();
    try (AckSender s = sender(twoSends)) {
      s.ackWhenDurable(new Position("binlog.000001", 100), first);
      s.ackWhenDurable(new Position("binlog.000002", 50), second);
      second.complete(null);
      eventually(Duration.ofSeconds(5), "the newer ack sent", () -> twoSends.getCount() == 1);
      first.complete(null);
      assertThat(twoSends.await(100, TimeUnit.MILLISECONDS)).as("no second ack").isFalse();
    }
    assertThat(sent).containsExactly(new Position("binlog.000002", 50));
  }

  @Test
  void aFailedDurabilityWaitIsKeptAndNotAcknowledged() throws Exception {
    CountDownLatch latch = new CountDownLatch(1);
    CompletableFuture<Position> durable = new CompletableFuture<>();
    try (AckSender s = sender(latch)) {
      s.ackWhenDurable(new Position("binlog.000001", 500), durable);
      durable.completeExceptionally(new IOException("disk gone"));
      assertThat(s.failure())
          .isNotNull()
          .hasMessageContaining("binlog.000001:500")
          .hasMessageContaining("disk gone");
      assertThat(latch.await(200, TimeUnit.MILLISECONDS)).isFalse();
    }
    assertThat(sent).isEmpty();
  }

  @Test
  void aFailedWriteIsKept() throws Exception {
    CompletableFuture<Position> durable = CompletableFuture.completedFuture(null);
    try (AckSender s =
        new AckSender(
                payload -> {
                  throw new IOException("broken pipe");
                },
                "primary:3306",
                counters)
            .start()) {
      s.ackWhenDurable(new Position("binlog.000001", 500), durable);
      eventually(Duration.ofSeconds(5), "the write failure kept", s::failure, Objects::nonNull);
      assertThat(s.failure()).isNotNull().hasMessageContaining("broken pipe");
    }
  }
}
