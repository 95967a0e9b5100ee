package org.binlogrelay.e2e.campaign;

import static org.binlogrelay.protocol.testing.Eventually.eventually;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.binlogrelay.e2e.load.Sysbench;
import org.binlogrelay.e2e.load.SysbenchResult;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.ServerException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Test side: sysbench write load on the primary for as long as the campaign runs, across the
 * primary's restarts and crashes. The load runs in rounds of up to 20 s; a round that a primary
 * fault cuts short fails (sysbench stops at the lost connection), is counted, and the next round
 * starts as soon as the primary answers again. A cut round's committed transactions are in the
 * primary's GTIDs but not in sysbench's count.
 *
 * <p>Thread-safe: one thread of its own runs the rounds; the counters are read from the campaign's
 * thread.
 */
final class LoadDriver implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LoadDriver.class);
  private static final Duration ROUND = Duration.ofSeconds(20);

  private final Sysbench sysbench;
  private final DatabaseServer primary;
  private final AtomicBoolean stopping = new AtomicBoolean();
  private final Thread thread;
  private volatile long transactions;
  private volatile int completedRounds;
  private volatile int cutRounds;
  private volatile String lastCut = "";
  private volatile Throwable failure;

  private LoadDriver(Sysbench sysbench, DatabaseServer primary) {
    this.sysbench = sysbench;
    this.primary = primary;
    this.thread = new Thread(this::rounds, "campaign-load");
    thread.setDaemon(true);
  }

  /** Starts the rounds on a thread of their own. */
  static LoadDriver start(Sysbench sysbench, DatabaseServer primary) {
    LoadDriver driver = new LoadDriver(sysbench, primary);
    driver.thread.start();
    return driver;
  }

  private void rounds() {
    try {
      while (!stopping.get()) {
        try {
          SysbenchResult result = sysbench.run(ROUND);
          transactions += result.transactions();
          completedRounds++;
        } catch (ServerException | IllegalStateException e) {
          cutRounds++;
          lastCut = firstLine(e.getMessage());
          LOG.info("sysbench round cut short (round {}): {}", completedRounds + cutRounds, lastCut);
          awaitPrimary();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException | Error e) {
      failure = e;
    }
  }

  /** Until the primary answers a query again (or the driver stops). */
  private void awaitPrimary() throws InterruptedException {
    eventually(
        Duration.ofMinutes(5),
        "the primary answering (or the driver stopping)",
        () -> {
          try {
            primary.queryValue("SELECT 1");
            return true;
          } catch (ServerException e) {
            return stopping.get();
          }
        });
  }

  private static String firstLine(String text) {
    if (text == null) {
      return "";
    }
    String[] lines = text.strip().split("\n");
    for (String line : lines) {
      if (line.contains("FATAL")) {
        return line.strip();
      }
    }
    return lines[0];
  }

  /** Ends the load: the round under way finishes (at most 20 s), then the thread ends. */
  void finish(Duration timeout) throws InterruptedException {
    stopping.set(true);
    thread.join(timeout.plus(ROUND).plusMinutes(2).toMillis());
    if (thread.isAlive()) {
      throw new AssertionError(
          "the sysbench load did not end within " + timeout.plus(ROUND).plusMinutes(2));
    }
    if (failure != null) {
      throw new AssertionError("the sysbench load failed: " + failure, failure);
    }
  }

  /** Transactions sysbench reported for its completed rounds. */
  long transactions() {
    return transactions;
  }

  int completedRounds() {
    return completedRounds;
  }

  /** Rounds a primary fault cut short. */
  int cutRounds() {
    return cutRounds;
  }

  String lastCut() {
    return lastCut;
  }

  @Override
  public void close() {
    if (thread.isAlive()) {
      stopping.set(true);
      thread.interrupt();
      try {
        thread.join(TimeUnit.MINUTES.toMillis(1));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
