package org.binlogrelay.server.metrics;

import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.binlogrelay.server.upstream.IngestStats;
import org.binlogrelay.server.upstream.UpstreamReplicator;
import org.binlogrelay.server.upstream.UpstreamState;

/**
 * The upstream replicator now, and the counter totals of the ones it replaced: the relay makes a
 * new replicator after a stop, a failure or a source change, and calls {@link #replace} then, so
 * that the replaced one's totals are kept at once (even for a replicator that lived and died
 * between two scrapes). {@link #totals()} reads the kept totals and the current replicator's
 * together, so the upstream counters never decrease.
 *
 * <p>Thread-safe.
 */
public final class UpstreamSuccession implements Supplier<Optional<UpstreamReplicator>> {
  private final Object lock = new Object();
  private final Supplier<Optional<UpstreamReplicator>> polled;
  private UpstreamReplicator current;
  private Totals kept = Totals.ZERO;

  /** An empty succession that the owner feeds with {@link #replace}. */
  public UpstreamSuccession() {
    this.polled = null;
  }

  private UpstreamSuccession(Supplier<Optional<UpstreamReplicator>> polled) {
    this.polled = polled;
  }

  /**
   * A succession that follows {@code upstream} by asking it at each read: a replicator replaced
   * between two reads without being seen is not counted. For callers that cannot call {@link
   * #replace}.
   */
  static UpstreamSuccession polling(Supplier<Optional<UpstreamReplicator>> upstream) {
    return new UpstreamSuccession(Objects.requireNonNull(upstream, "upstream"));
  }

  /** Makes {@code next} the current replicator; the totals of the one it replaces are kept. */
  public void replace(UpstreamReplicator next) {
    Objects.requireNonNull(next, "next");
    synchronized (lock) {
      if (next == current) {
        return;
      }
      if (current != null) {
        kept = kept.plus(current);
      }
      current = next;
    }
  }

  /** The current replicator; empty before the first. */
  @Override
  public Optional<UpstreamReplicator> get() {
    synchronized (lock) {
      poll();
      return Optional.ofNullable(current);
    }
  }

  /** The totals of every replicator so far, the current one's as of now included. */
  public Totals totals() {
    synchronized (lock) {
      poll();
      return current == null ? kept : kept.plus(current);
    }
  }

  private void poll() {
    if (polled != null) {
      polled.get().ifPresent(this::replace);
    }
  }

  /**
   * Counter totals over replicators. Immutable.
   *
   * @param bytes bytes of events received
   * @param events events received
   * @param heartbeats heartbeats received
   * @param transactions transactions received and stored
   * @param connections connections that reached streaming
   * @param failures failed connections or streams, indexed by {@link
   *     IngestStats.FailureKind#ordinal()}
   */
  public record Totals(
      long bytes,
      long events,
      long heartbeats,
      long transactions,
      long connections,
      long[] failures) {
    static final Totals ZERO =
        new Totals(0, 0, 0, 0, 0, new long[IngestStats.FailureKind.values().length]);

    /** Failures of one kind. */
    public long failures(IngestStats.FailureKind kind) {
      return failures[kind.ordinal()];
    }

    Totals plus(UpstreamReplicator r) {
      UpstreamState s = r.state();
      long[] f = failures.clone();
      r.ingestStats().failures().forEach((k, v) -> f[k.ordinal()] += v);
      return new Totals(
          bytes + s.bytesReceived(),
          events + s.eventsReceived(),
          heartbeats + s.heartbeatsReceived(),
          transactions + s.transactionsReceived(),
          connections + s.connections(),
          f);
    }
  }
}
