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
 * How far behind each replica's feed is, and how fast it catches up. {@link #sample()} runs once a second (the
 * relay's metrics thread): it takes every dump's snapshot, measures the stored bytes between the dump's position
 * and the store's readable end, and keeps the samples of the last {@link #WINDOW} per dump. From them:
 *
 * <ul>
 *   <li>send rate: bytes sent over the window divided by its length;
 *   <li>catch-up rate: bytes behind at the window's start minus now, divided by the time between (negative when
 *       the replica falls further behind); when bytes behind peaked inside the window at least a second ago, from
 *       that peak instead, so that the rate follows a catch-up as soon as it starts (after a pause, a restart);
 *   <li>ETA: bytes behind divided by the catch-up rate when it is positive; 0 when caught up; unknown otherwise.
 * </ul>
 *
 * Seconds behind comes from the {@link BoundaryLog}: the newest boundary's event timestamp minus that of the
 * newest boundary at or before the dump's position (for a position older than the ring: the last event time of
 * the dump's file, which gives a lower bound).
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

  private record Sample(long nanos, long bytesSent, long bytesBehind) {}

  /**
   * @param store the store (may answer {@code null} before it is open)
   * @param dumps the dumps being served now
   */
  public ReplicaLag(Supplier<BinlogStore> store, Supplier<List<DumpStatus>> dumps, BoundaryLog boundaries,
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

  private ReplicaView view(DumpStatus d, Position at, Position head, List<FileMetadata> files, long behind,
      ArrayDeque<Sample> samples) {
    Double sendRate = null;
    Double catchUp = null;
    Sample first = samples.peekFirst();
    Sample last = samples.peekLast();
    double seconds = (last.nanos() - first.nanos()) / 1e9;
    if (samples.size() >= 2 && seconds > 0) {
      sendRate = (last.bytesSent() - first.bytesSent()) / seconds;
      Sample peak = first;
      for (Sample x : samples) {
        if (x.bytesBehind() > peak.bytesBehind()) {
          peak = x;
        }
      }
      double sincePeak = (last.nanos() - peak.nanos()) / 1e9;
      Sample from = peak != first && sincePeak >= 1 ? peak : first;
      catchUp = (from.bytesBehind() - last.bytesBehind()) / ((last.nanos() - from.nanos()) / 1e9);
    }
    Double eta = behind == 0 ? Double.valueOf(0) : catchUp != null && catchUp > 0 ? behind / catchUp : null;
    return new ReplicaView(d, behind, secondsBehind(at, head, files), sendRate, catchUp, eta);
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
      sentTimestamp = files.stream().filter(f -> f.name().equals(at.file())).mapToLong(FileMetadata::lastEventTime)
          .findFirst().orElse(0);
      if (sentTimestamp == 0) {
        return null;
      }
    }
    return (double) Math.max(0, newest.eventTimestamp() - sentTimestamp);
  }

  /**
   * Stored event bytes in {@code [from, to)} across {@code files} (in serving order; the open file's size is its
   * readable length): each file's part from its first event (offset 4) on. 0 if {@code from} is not before
   * {@code to}.
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
      long a = f.name().equals(from.file()) ? Math.max(from.offset(), BinlogFileName.FIRST_EVENT_OFFSET)
          : BinlogFileName.FIRST_EVENT_OFFSET;
      long b = f.name().equals(to.file()) ? to.offset() : f.size();
      total += Math.max(0, b - a);
    }
    return total;
  }
}
