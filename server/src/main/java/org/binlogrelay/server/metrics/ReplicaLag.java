package org.binlogrelay.server.metrics;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.binlogrelay.server.serving.DumpStatus;
import org.binlogrelay.storage.BinlogFileName;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.Time;

/**
 * How far behind each replica's feed is, and how fast it catches up. {@link #sample()} runs once a
 * second (the relay's metrics thread): it takes every dump's snapshot, measures the stored bytes
 * between the dump's position and the store's readable end, and keeps the samples of the last
 * {@link #WINDOW} per dump. From them:
 *
 * <ul>
 *   <li>send rate: bytes sent over the window divided by its length;
 *   <li>catch-up rate ({@link #catchUpRate}): how fast bytes behind shrinks (negative when the
 *       replica falls further behind), over the window; once bytes behind has peaked inside the
 *       window, over the samples after the peak only, as the slope of a least-squares line through
 *       them, so that the rate follows a catch-up as soon as it starts (after a pause, a restart)
 *       and leaves out the burst that refills the connection's socket buffers right after the peak
 *       (those bytes count as sent although the replica has not read them yet);
 *   <li>ETA: bytes behind divided by the catch-up rate when it is positive; 0 when caught up;
 *       unknown otherwise.
 * </ul>
 *
 * Seconds behind comes from the {@link BoundaryLog}: the newest boundary's event timestamp minus
 * that of the newest boundary at or before the dump's position (for a position older than the ring:
 * the last event time of the dump's file, which gives a lower bound).
 *
 * <p>Thread-safe: {@link #sample()} and {@link #views()} synchronise on this object.
 */
public final class ReplicaLag {
  /** The window rates are measured over. */
  public static final Duration WINDOW = Duration.ofSeconds(10);

  private final Supplier<BinlogStore> store;
  private final Supplier<List<DumpStatus>> dumps;
  private final BoundaryLog boundaries;
  private final Time time;
  private final Map<Long, ArrayDeque<Sample>> history = new HashMap<>();
  private List<ReplicaView> views = List.of();

  /** One sample of a dump: when, bytes sent so far, bytes behind the store's readable end. */
  record Sample(long nanos, long bytesSent, long bytesBehind) {}

  /**
   * @param store the store (may answer {@code null} before it is open)
   * @param dumps the dumps being served now
   */
  public ReplicaLag(
      Supplier<BinlogStore> store,
      Supplier<List<DumpStatus>> dumps,
      BoundaryLog boundaries,
      Time time) {
    this.store = store;
    this.dumps = dumps;
    this.boundaries = boundaries;
    this.time = time;
  }

  /** Takes a sample of every dump and recomputes the views. */
  public synchronized List<ReplicaView> sample() {
    BinlogStore s = store.get();
    List<DumpStatus> current = dumps.get();
    long now = time.nanoseconds();
    List<FileMetadata> files = s == null ? List.of() : s.files();
    Position head = s == null ? null : s.readableEnd();
    List<ReplicaView> next = new ArrayList<>(current.size());
    Set<Long> seen = new HashSet<>();
    for (DumpStatus d : current) {
      if (d.state() == DumpStatus.State.CLOSED) {
        continue;
      }
      seen.add(d.id());
      Position at = d.file().isEmpty() ? null : new Position(d.file(), d.position());
      long behind = at == null ? 0 : bytesBetween(files, at, head);
      ArrayDeque<Sample> samples = history.computeIfAbsent(d.id(), id -> new ArrayDeque<>());
      samples.addLast(new Sample(now, d.bytesSent(), behind));
      while (samples.size() > 2 && now - samples.peekFirst().nanos() > WINDOW.toNanos()) {
        samples.removeFirst();
      }
      next.add(view(d, at, head, files, behind, samples));
    }
    history.keySet().retainAll(seen);
    views = List.copyOf(next);
    return views;
  }

  /** The views of the last {@link #sample()}. */
  public synchronized List<ReplicaView> views() {
    return views;
  }

  /** The view of dump {@code id} from the last sample. */
  public synchronized Optional<ReplicaView> view(long id) {
    return views.stream().filter(v -> v.status().id() == id).findFirst();
  }

  private ReplicaView view(
      DumpStatus d,
      Position at,
      Position head,
      List<FileMetadata> files,
      long behind,
      ArrayDeque<Sample> samples) {
    Double sendRate = null;
    Double catchUp = null;
    Sample first = samples.peekFirst();
    Sample last = samples.peekLast();
    double seconds = (last.nanos() - first.nanos()) / 1e9;
    if (samples.size() >= 2 && seconds > 0) {
      sendRate = (last.bytesSent() - first.bytesSent()) / seconds;
      catchUp = catchUpRate(List.copyOf(samples));
    }
    Double eta =
        behind == 0 ? Double.valueOf(0) : catchUp != null && catchUp > 0 ? behind / catchUp : null;
    return new ReplicaView(d, behind, secondsBehind(at, head, files), sendRate, catchUp, eta);
  }

  /**
   * Bytes per second by which bytes behind shrinks over {@code samples} (oldest first, at least
   * two, spanning some time). From the newest peak of bytes behind: when at least two samples
   * spanning a second follow it, the negated least-squares slope through those samples (the peak
   * itself left out); when fewer follow it but the peak is at least a second old, from the peak to
   * the last sample; otherwise (the last sample is the peak: falling behind or level) from the
   * first sample to the last.
   */
  static double catchUpRate(List<Sample> samples) {
    Sample first = samples.get(0);
    Sample last = samples.get(samples.size() - 1);
    int peak = 0;
    for (int i = 1; i < samples.size(); i++) {
      if (samples.get(i).bytesBehind() >= samples.get(peak).bytesBehind()) {
        peak = i;
      }
    }
    if (peak < samples.size() - 1) {
      List<Sample> after = samples.subList(peak + 1, samples.size());
      if (after.size() >= 2 && last.nanos() - after.get(0).nanos() >= 1_000_000_000L) {
        return -slope(after);
      }
      if (last.nanos() - samples.get(peak).nanos() >= 1_000_000_000L) {
        return rate(samples.get(peak), last);
      }
    }
    return rate(first, last);
  }

  private static double rate(Sample from, Sample to) {
    return (from.bytesBehind() - to.bytesBehind()) / ((to.nanos() - from.nanos()) / 1e9);
  }

  /** Least-squares slope of bytes behind over time, in bytes per second. */
  private static double slope(List<Sample> samples) {
    long t0 = samples.get(0).nanos();
    double n = samples.size();
    double sumT = 0;
    double sumB = 0;
    for (Sample s : samples) {
      sumT += (s.nanos() - t0) / 1e9;
      sumB += s.bytesBehind();
    }
    double meanT = sumT / n;
    double meanB = sumB / n;
    double cov = 0;
    double var = 0;
    for (Sample s : samples) {
      double dt = (s.nanos() - t0) / 1e9 - meanT;
      cov += dt * (s.bytesBehind() - meanB);
      var += dt * dt;
    }
    return var == 0 ? 0 : cov / var;
  }

  private Double secondsBehind(Position at, Position head, List<FileMetadata> files) {
    if (at == null || head == null) {
      return null;
    }
    if (!at.isBefore(head)) {
      return 0.0;
    }
    BoundaryLog.Entry newest = boundaries.newest();
    if (newest == null) {
      return null;
    }
    BoundaryLog.Entry sent = boundaries.atOrBefore(at);
    long sentTimestamp;
    if (sent != null) {
      sentTimestamp = sent.eventTimestamp();
    } else {
      sentTimestamp =
          files.stream()
              .filter(f -> f.name().equals(at.file()))
              .mapToLong(FileMetadata::lastEventTime)
              .findFirst()
              .orElse(0);
      if (sentTimestamp == 0) {
        return null;
      }
    }
    return (double) Math.max(0, newest.eventTimestamp() - sentTimestamp);
  }

  /**
   * Stored event bytes in {@code [from, to)} across {@code files} (in serving order; the open
   * file's size is its readable length): each file's part from its first event (offset 4) on. 0 if
   * {@code from} is not before {@code to}.
   */
  static long bytesBetween(List<FileMetadata> files, Position from, Position to) {
    if (to == null || !from.isBefore(to)) {
      return 0;
    }
    long total = 0;
    for (FileMetadata f : files) {
      Position start = Position.startOf(f.name());
      Position end = f.name().equals(to.file()) ? to : new Position(f.name(), f.size());
      if (end.compareTo(from) <= 0 || start.compareTo(to) >= 0) {
        continue;
      }
      long a =
          f.name().equals(from.file())
              ? Math.max(from.offset(), BinlogFileName.FIRST_EVENT_OFFSET)
              : BinlogFileName.FIRST_EVENT_OFFSET;
      long b = f.name().equals(to.file()) ? to.offset() : f.size();
      total += Math.max(0, b - a);
    }
    return total;
  }
}
