package org.binlogrelay.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The syncer is woken only when its policy can act on what was written: each wake of a sleeping
 * thread costs the writer a system call and the machine a context switch, per transaction if done
 * blindly.
 */
class SyncerTest {
  private static final int TRANSACTIONS = 1_000;

  @TempDir Path dir;

  @Test
  void everyNTransactionsIsWokenOnlyWhenNAreWritten() throws Exception {
    Run run = run(SyncPolicy.everyTransactions(100));
    assertThat(run.durable.position()).as("forced once 100 were written").isEqualTo(run.last);
    assertThat(run.syncer.signals())
        .as("wake-ups for " + TRANSACTIONS + " transactions")
        .isLessThanOrEqualTo(TRANSACTIONS / 100);
  }

  @Test
  void anIntervalIsWokenOnlyToStartItsTimer() throws Exception {
    Run run = run(SyncPolicy.every(Duration.ofHours(1)));
    assertThat(run.syncer.signals())
        .as("wake-ups for " + TRANSACTIONS + " transactions")
        .isLessThanOrEqualTo(1);
  }

  @Test
  void offIsNeverWokenForTransactions() throws Exception {
    Run run = run(SyncPolicy.off());
    assertThat(run.syncer.signals()).isZero();
  }

  @Test
  void everyTransactionIsWokenOnlyWhenItSleepsAndStillForcesEveryTransaction() throws Exception {
    Run run = run(SyncPolicy.everyTransaction());
    assertThat(run.durable.position())
        .as("every transaction durable without any request")
        .isEqualTo(run.last);
    assertThat(run.syncer.signals())
        .as("a wake-up only for a syncer waiting for work")
        .isLessThanOrEqualTo(run.syncer.forces());
    System.out.printf(
        "every-transaction: %d transactions, %d forces, %d wake-ups%n",
        TRANSACTIONS, run.syncer.forces(), run.syncer.signals());
  }

  private record Run(Syncer syncer, StoreWatch durable, Position last) {}

  /**
   * Writes {@link #TRANSACTIONS} small transactions, then waits for the policy to catch up (if it
   * does).
   */
  private Run run(SyncPolicy policy) throws Exception {
    StoreDirectory d = new StoreDirectory(dir);
    StoreWatch durable = new StoreWatch("durable", null);
    Syncer syncer =
        new Syncer("test syncer", policy, Time.SYSTEM, durable, null, p -> {}, (what, e) -> {});
    syncer.start();
    Position last = null;
    try (BinlogFile file = BinlogFile.create(d, "binlog.000001")) {
      byte[] transaction = new byte[100];
      for (int i = 0; i < TRANSACTIONS; i++) {
        file.append(transaction, 0, transaction.length);
        file.flush();
        last = new Position(file.name(), file.size());
        syncer.written(last, file, true);
      }
      if (policy.kind() == SyncPolicy.Kind.EVERY_TRANSACTION) {
        durable.awaitReached(last, Duration.ofSeconds(30));
      } else if (policy.kind() == SyncPolicy.Kind.EVERY_N_TRANSACTIONS) {
        durable.whenReached(last).get(30, TimeUnit.SECONDS);
      }
      syncer.stop();
    }
    return new Run(syncer, durable, last);
  }
}
