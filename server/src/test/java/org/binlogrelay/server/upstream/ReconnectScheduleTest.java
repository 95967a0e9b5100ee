package org.binlogrelay.server.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.EOFException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.binlogrelay.protocol.event.CorruptEventException;
import org.binlogrelay.server.upstream.FailurePolicy.FailureClass;
import org.binlogrelay.server.upstream.ReconnectSchedule.Attempt;
import org.binlogrelay.server.upstream.ReconnectSchedule.Decision;
import org.binlogrelay.storage.ContinuityException;
import org.binlogrelay.storage.Position;
import org.junit.jupiter.api.Test;

/**
 * The reconnection schedule, decision by decision: delays (with the jitter's random value given),
 * their cap, what resets them, and when the replicator gives up. No clock and no thread: how long a
 * connection streamed is given.
 */
class ReconnectScheduleTest {
  /** The default backoff: 200 ms doubling to 30 s, half of it jitter. */
  private static final Backoff BACKOFF = Backoff.DEFAULT;

  private static final int MAX = FailurePolicy.MAX_IDENTICAL_FAILURES;
  private static final Position STORE_END = new Position("binlog.000001", 1044);

  private final ReconnectSchedule schedule = new ReconnectSchedule(BACKOFF);

  private static PrimaryErrorException accessDenied() {
    return new PrimaryErrorException(
        "primary 127.0.0.1:3306 did not authenticate user 'repl'",
        1045,
        "28000",
        "Access denied for user 'repl'@'localhost' (using password: YES)");
  }

  /** The failure of issue #14: the XID of a transaction whose GTID event was stored is refused. */
  private static ContinuityException xidRefused() {
    return new ContinuityException(
        STORE_END,
        "XID event with log_pos 1367 starts at 1336 of binlog.000001, but the"
            + " store ends at 1044 (gap: 292 bytes of binlog.000001 from 1044 are missing); nothing was written");
  }

  /**
   * A connection that resumed where the store ends, stored the transaction's first events,
   * completed nothing.
   */
  private static Attempt storedAPartialTransaction(Duration streamed) {
    return new Attempt(STORE_END, null, streamed);
  }

  private static List<Long> delaysMillis(List<Decision> decisions) {
    return decisions.stream().map(d -> d.delay().toMillis()).toList();
  }

  @Test
  void transientFailuresDoubleTheDelayUpToTheCapAndNeverGiveUp() {
    List<Decision> decisions = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      decisions.add(schedule.next(new ConnectException("Connection refused"), Attempt.NOTHING, 0));
    }
    assertThat(decisions)
        .allSatisfy(
            d -> {
              assertThat(d.retry()).isTrue();
              assertThat(d.failureClass()).isEqualTo(FailureClass.TRANSIENT);
              assertThat(d.identical()).isZero();
            });
    assertThat(delaysMillis(decisions.subList(0, 10)))
        .containsExactly(200L, 400L, 800L, 1600L, 3200L, 6400L, 12800L, 25600L, 30000L, 30000L);
    assertThat(decisions.get(39).delay()).isEqualTo(Duration.ofSeconds(30));
    assertThat(decisions.get(39).attempt()).isEqualTo(40);
  }

  @Test
  void theFirstRetryAfterAWorkingConnectionComesWithinTheInitialDelay() {
    Decision d =
        schedule.next(
            new EOFException("closed"),
            new Attempt(STORE_END, new Position("binlog.000001", 5000), Duration.ofMillis(20)),
            0.999);
    assertThat(d.retry()).isTrue();
    assertThat(d.attempt()).isEqualTo(1);
    assertThat(d.delay()).isBetween(Duration.ofMillis(100), Duration.ofMillis(200));
  }

  @Test
  void theSameDeterministicFailureStopsAfterTheMaximumWithGrowingDelays() {
    List<Decision> decisions = new ArrayList<>();
    for (int i = 0; i < MAX; i++) {
      decisions.add(schedule.next(accessDenied(), Attempt.NOTHING, 0));
    }
    assertThat(decisions.subList(0, MAX - 1)).allSatisfy(d -> assertThat(d.retry()).isTrue());
    assertThat(delaysMillis(decisions.subList(0, MAX - 1)))
        .containsExactly(200L, 400L, 800L, 1600L);
    assertThat(decisions).extracting(Decision::identical).containsExactly(1, 2, 3, 4, 5);
    Decision last = decisions.get(MAX - 1);
    assertThat(last.retry()).isFalse();
    assertThat(last.failureClass()).isEqualTo(FailureClass.DETERMINISTIC);
    assertThat(last.attempt()).isEqualTo(MAX);
    assertThat(last.reason())
        .startsWith(
            "primary 127.0.0.1:3306 did not authenticate user 'repl': error 1045 (28000):"
                + " Access denied")
        .contains("the same failure 5 times in a row")
        .contains("not retrying");
  }

  /** Issue #14: events written without a completed transaction are no progress. */
  @Test
  void aContinuityFailureAfterAPartialTransactionStopsTheStorm() {
    List<Decision> decisions = new ArrayList<>();
    for (int i = 0; i < MAX; i++) {
      decisions.add(
          schedule.next(xidRefused(), storedAPartialTransaction(Duration.ofMillis(3)), 0));
    }
    assertThat(delaysMillis(decisions.subList(0, MAX - 1)))
        .containsExactly(200L, 400L, 800L, 1600L);
    assertThat(decisions).extracting(Decision::attempt).containsExactly(1, 2, 3, 4, 5);
    Decision last = decisions.get(MAX - 1);
    assertThat(last.retry()).isFalse();
    assertThat(last.reason())
        .startsWith("XID event with log_pos 1367 starts at 1336 of binlog.000001")
        .contains("the same failure 5 times in a row with the store at binlog.000001:1044");
  }

  @Test
  void aCompletedTransactionBeyondTheFurthestPointResetsBothCounts() {
    for (int i = 0; i < MAX - 1; i++) {
      assertThat(schedule.next(xidRefused(), storedAPartialTransaction(Duration.ZERO), 0).retry())
          .isTrue();
    }
    Position further = new Position("binlog.000001", 2000);
    Decision afterProgress =
        schedule.next(xidRefused(), new Attempt(STORE_END, further, Duration.ofMillis(5)), 0);
    assertThat(afterProgress.retry()).isTrue();
    assertThat(afterProgress.attempt()).isEqualTo(1);
    assertThat(afterProgress.identical()).isEqualTo(1);
    assertThat(afterProgress.delay()).isEqualTo(Duration.ofMillis(200));
    // the next connections resume there and complete nothing: no progress, the new run goes on
    Decision again = schedule.next(xidRefused(), new Attempt(further, null, Duration.ZERO), 0);
    assertThat(again.attempt()).isEqualTo(2);
    assertThat(again.identical()).isEqualTo(2);
    Decision third = schedule.next(xidRefused(), new Attempt(further, null, Duration.ZERO), 0);
    assertThat(third.identical()).isEqualTo(3);
    assertThat(third.delay()).isEqualTo(Duration.ofMillis(800));
  }

  @Test
  void aTransactionThatEndsWhereTheStoreAlreadyWasIsNoProgress() {
    schedule.next(accessDenied(), new Attempt(STORE_END, null, Duration.ZERO), 0);
    Decision d = schedule.next(accessDenied(), new Attempt(STORE_END, STORE_END, Duration.ZERO), 0);
    assertThat(d.attempt()).isEqualTo(2);
    assertThat(d.identical()).isEqualTo(2);
  }

  @Test
  void aStableConnectionResetsTheDelayButNotTheRunOfIdenticalFailures() {
    for (int i = 0; i < 3; i++) {
      schedule.next(xidRefused(), storedAPartialTransaction(Duration.ZERO), 0);
    }
    Decision afterLongStream =
        schedule.next(
            xidRefused(), storedAPartialTransaction(ReconnectSchedule.STABLE_CONNECTION), 0);
    assertThat(afterLongStream.attempt()).isEqualTo(1);
    assertThat(afterLongStream.delay()).isEqualTo(Duration.ofMillis(200));
    assertThat(afterLongStream.identical()).isEqualTo(4);
    Decision shortOne =
        schedule.next(
            xidRefused(),
            storedAPartialTransaction(ReconnectSchedule.STABLE_CONNECTION.minusMillis(1)),
            0);
    assertThat(shortOne.retry()).isFalse();
    assertThat(shortOne.attempt()).isEqualTo(2);
  }

  @Test
  void anIdlePrimaryWithRareNetworkFaultsIsRetriedQuicklyEachTime() {
    for (int i = 0; i < 20; i++) {
      Decision d =
          schedule.next(
              new SocketTimeoutException("no event or heartbeat"),
              new Attempt(STORE_END, null, Duration.ofMinutes(90)),
              0);
      assertThat(d.delay()).isEqualTo(Duration.ofMillis(200));
      assertThat(d.attempt()).isEqualTo(1);
    }
  }

  @Test
  void transientFailuresInBetweenNeitherCountNorBreakTheRun() {
    List<Decision> denied = new ArrayList<>();
    for (int i = 0; i < MAX; i++) {
      denied.add(schedule.next(accessDenied(), Attempt.NOTHING, 0));
      if (i < MAX - 1) {
        Decision restarting =
            schedule.next(new ConnectException("Connection refused"), Attempt.NOTHING, 0);
        assertThat(restarting.retry()).isTrue();
        assertThat(restarting.identical()).isEqualTo(i + 1);
      }
    }
    assertThat(denied).extracting(Decision::identical).containsExactly(1, 2, 3, 4, 5);
    assertThat(denied.get(MAX - 1).retry()).isFalse();
    assertThat(denied.get(MAX - 1).attempt()).as("every failure delays").isEqualTo(2 * MAX - 1);
  }

  @Test
  void aDifferentDeterministicFailureStartsANewRun() {
    for (int i = 0; i < MAX - 1; i++) {
      schedule.next(accessDenied(), Attempt.NOTHING, 0);
    }
    PrimaryErrorException noPrivilege =
        new PrimaryErrorException(
            "primary p",
            1227,
            "42000",
            "Access denied; you need (at least one of) the REPLICATION SLAVE privilege(s) for this operation");
    Decision other = schedule.next(noPrivilege, Attempt.NOTHING, 0);
    assertThat(other.retry()).isTrue();
    assertThat(other.identical()).isEqualTo(1);
    assertThat(other.attempt()).as("the delay keeps growing: still no progress").isEqualTo(MAX);
    Decision sameTextOtherPosition =
        schedule.next(noPrivilege, new Attempt(STORE_END, null, Duration.ZERO), 0);
    assertThat(sameTextOtherPosition.identical())
        .as("the store's position is part of the identity")
        .isEqualTo(1);
  }

  @Test
  void theServerTextIsComparedNotTheRelaysContext() {
    schedule.next(
        new PrimaryErrorException(
            "primary p ended the dump requested from binlog.000001:4 (before its" + " first event)",
            1290,
            "HY000",
            "read only"),
        Attempt.NOTHING,
        0);
    Decision d =
        schedule.next(
            new PrimaryErrorException(
                "primary p ended the dump requested from binlog.000001:4"
                    + " (stream at binlog.000001:4)",
                1290,
                "HY000",
                "read only"),
            Attempt.NOTHING,
            0);
    assertThat(d.identical()).isEqualTo(2);
  }

  @Test
  void aCorruptEventAtTheSamePlaceIsDeterministic() {
    Decision d = null;
    for (int i = 0; i < MAX; i++) {
      d =
          schedule.next(
              new CorruptEventException(
                  CorruptEventException.Reason.CHECKSUM_MISMATCH, 1336, "CRC32 mismatch at 1336"),
              new Attempt(STORE_END, null, Duration.ZERO),
              0);
    }
    assertThat(d.retry()).isFalse();
    assertThat(d.failureClass()).isEqualTo(FailureClass.DETERMINISTIC);
  }

  @Test
  void fatalFailuresStopAtOnce() {
    Decision d =
        schedule.next(
            new PrimaryErrorException("primary p", 1236, "HY000", "Could not find first log"),
            Attempt.NOTHING,
            0);
    assertThat(d.retry()).isFalse();
    assertThat(d.failureClass()).isEqualTo(FailureClass.FATAL);
    assertThat(d.reason()).isEqualTo("primary p: error 1236 (HY000): Could not find first log");
    assertThat(d.attempt()).isEqualTo(1);
  }

  @Test
  void resetStartsAfresh() {
    for (int i = 0; i < MAX - 1; i++) {
      schedule.next(accessDenied(), Attempt.NOTHING, 0);
    }
    schedule.reset();
    Decision d = schedule.next(accessDenied(), Attempt.NOTHING, 0);
    assertThat(d.attempt()).isEqualTo(1);
    assertThat(d.identical()).isEqualTo(1);
    assertThat(d.delay()).isEqualTo(Duration.ofMillis(200));
  }

  @Test
  void jitterTakesUpToHalfOfTheDefaultDelay() {
    assertThat(schedule.next(new EOFException(), Attempt.NOTHING, 0.999999).delay())
        .isBetween(Duration.ofMillis(100), Duration.ofMillis(101));
    assertThat(schedule.next(new EOFException(), Attempt.NOTHING, 0.5).delay())
        .isEqualTo(Duration.ofMillis(300));
  }
}
