package org.binlogrelay.storage;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * When the store forces written binlog bytes to disk, like the server's {@code sync_binlog}.
 * Whatever the policy, the writer never waits for a force: a background syncer does it, and {@link
 * BinlogStore#durable()} says how far the bytes are on disk.
 *
 * <ul>
 *   <li>{@link #everyTransaction()} ({@code sync_binlog=1}): every transaction is forced, by group
 *       commit: one force covers all transactions written while the previous force ran.
 *   <li>{@link #everyTransactions(int)} ({@code sync_binlog=N}): a force whenever the N-th, 2N-th,
 *       ... transaction is written (counted since the store opened); it covers everything written
 *       by then, so at most N-1 transactions wait for a force, and a stream that stops after a
 *       multiple of N is all durable.
 *   <li>{@link #every(Duration)}: a force at most once per interval, when something was written.
 *   <li>{@link #off()} ({@code sync_binlog=0}): no force for transactions. Bytes still become
 *       durable when a file is closed (its final force), at checkpoints (which force the file
 *       first, see {@link StoreConfig#checkpointBytes()}), on {@link BinlogStore#sync()} and on
 *       close.
 * </ul>
 *
 * The policy decides, the {@link Syncer} acts: {@link #wakesSyncer}, {@link #nanosUntilDue} and
 * {@link #waitingAfterForce} are every rule's decisions, side by side. Immutable.
 *
 * @param kind which rule
 * @param transactions for {@link Kind#EVERY_N_TRANSACTIONS}: N (1 for every transaction, 0
 *     otherwise)
 * @param interval for {@link Kind#INTERVAL}: the interval ({@link Duration#ZERO} otherwise)
 */
public record SyncPolicy(Kind kind, int transactions, Duration interval) {

  /** The rules. */
  public enum Kind {
    EVERY_TRANSACTION,
    EVERY_N_TRANSACTIONS,
    INTERVAL,
    OFF
  }

  public SyncPolicy {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(interval, "interval");
    if (kind == Kind.EVERY_N_TRANSACTIONS && transactions < 1) {
      throw new IllegalArgumentException(
          "sync every N transactions needs N >= 1, got " + transactions);
    }
    if (kind == Kind.INTERVAL && (interval.isNegative() || interval.isZero())) {
      throw new IllegalArgumentException("sync interval must be positive, got " + interval);
    }
  }

  public static SyncPolicy everyTransaction() {
    return new SyncPolicy(Kind.EVERY_TRANSACTION, 1, Duration.ZERO);
  }

  public static SyncPolicy everyTransactions(int n) {
    return n == 1
        ? everyTransaction()
        : new SyncPolicy(Kind.EVERY_N_TRANSACTIONS, n, Duration.ZERO);
  }

  public static SyncPolicy every(Duration interval) {
    return new SyncPolicy(Kind.INTERVAL, 0, interval);
  }

  public static SyncPolicy off() {
    return new SyncPolicy(Kind.OFF, 0, Duration.ZERO);
  }

  /**
   * True if every transaction is forced without being asked ({@code sync_binlog=1}): a wait for a
   * position to become durable then needs no {@link BinlogStore#sync()}.
   */
  public boolean forcesEveryTransaction() {
    return kind == Kind.EVERY_TRANSACTION;
  }

  /**
   * Whether a syncer waiting for work with no deadline should be woken by a write, with {@code
   * waiting} transactions written since its last force. Every transaction: yes (while the syncer
   * forces, what is written meanwhile is what its next round forces: group commit). Every N: once N
   * are waiting. An interval: yes, to start its timer (a syncer waiting for a due force has a
   * deadline). Off: never.
   */
  boolean wakesSyncer(long waiting) {
    switch (kind) {
      case EVERY_TRANSACTION:
        return true;
      case EVERY_N_TRANSACTIONS:
        return waiting >= transactions;
      case INTERVAL:
        return true;
      default:
        return false;
    }
  }

  /**
   * How long until this policy wants a force: 0 now, {@link Long#MAX_VALUE} not for transactions
   * alone.
   *
   * @param behind whether something was written since the last force
   * @param waiting transactions written since the last force
   * @param sinceForce nanoseconds since the last force
   */
  long nanosUntilDue(boolean behind, long waiting, long sinceForce) {
    if (!behind) {
      return Long.MAX_VALUE;
    }
    switch (kind) {
      case EVERY_TRANSACTION:
        return 0;
      case EVERY_N_TRANSACTIONS:
        return waiting >= transactions ? 0 : Long.MAX_VALUE;
      case INTERVAL:
        return Math.max(0, interval.toNanos() - sinceForce);
      default:
        return Long.MAX_VALUE;
    }
  }

  /**
   * Transactions still counted as waiting after a force that covered {@code waiting}: every N keeps
   * the remainder, so forces fall on the N-th, 2N-th, ... transaction since the store opened; the
   * other rules start again at 0.
   */
  long waitingAfterForce(long waiting) {
    return kind == Kind.EVERY_N_TRANSACTIONS ? waiting % transactions : 0;
  }

  /**
   * Parses the configuration form: {@code every-transaction}, {@code every-N-transactions} (e.g.
   * {@code every-100-transactions}), {@code every-250ms} / {@code every-2s}, or {@code off}.
   */
  public static SyncPolicy parse(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    try {
      if (t.equals("every-transaction") || t.equals("1")) {
        return everyTransaction();
      }
      if (t.equals("off") || t.equals("0")) {
        return off();
      }
      if (t.startsWith("every-") && t.endsWith("-transactions")) {
        return everyTransactions(Integer.parseInt(t.substring(6, t.length() - 13)));
      }
      if (t.startsWith("every-") && t.endsWith("ms")) {
        return every(Duration.ofMillis(Long.parseLong(t.substring(6, t.length() - 2))));
      }
      if (t.startsWith("every-") && t.endsWith("s")) {
        return every(Duration.ofSeconds(Long.parseLong(t.substring(6, t.length() - 1))));
      }
    } catch (NumberFormatException e) {
      // fall through to the error below
    }
    throw new IllegalArgumentException(
        "sync policy '"
            + text
            + "' not understood; use every-transaction,"
            + " every-N-transactions, every-250ms, every-2s or off");
  }

  @Override
  public String toString() {
    switch (kind) {
      case EVERY_TRANSACTION:
        return "every-transaction";
      case EVERY_N_TRANSACTIONS:
        return "every-" + transactions + "-transactions";
      case INTERVAL:
        return "every-" + interval.toMillis() + "ms";
      default:
        return "off";
    }
  }
}
