package org.binlogrelay.storage.pitr;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.storage.BinlogSource;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.OpenedFile;
import org.binlogrelay.storage.pitr.StopPointException.Reason;

/**
 * Finds where a point-in-time recovery stops, always at a transaction boundary: by time ({@link
 * #beforeTime}), right before one transaction ({@link #beforeGtid}, the accidental {@code DROP
 * TABLE}) or after the last transaction of a GTID set ({@link #afterGtids}).
 *
 * <p>Commit times: MySQL's GTID event carries {@code immediate_commit_timestamp} (microseconds);
 * MariaDB's has none, so there (and in a MySQL binlog without commit timestamps) a transaction's
 * time is the header timestamp of its last event (the XID or COMMIT), whole seconds, and counts as
 * the whole second: a transaction logged in second {@code s} is before {@code t} only if all of
 * {@code s} is. Statement start times ({@code mysqlbinlog --stop-datetime} compares those) would
 * cut inside a transaction or include one that committed after {@code t}; these never do.
 *
 * <p>Only what is needed is read: the files are chosen from their metadata ({@link
 * FileMetadata#firstEventTime()} of the next file bounds a file's commit times, since a file is
 * rotated after its last commit; {@link FileMetadata#gtidsAtStart()} and {@link
 * FileMetadata#gtidsAtEnd()} say which file has a GTID), then one file is scanned (two when the
 * stop is right at the start of a file: the previous file's last transaction is the last included).
 * This assumes the primary's clock does not go backwards across a rotation.
 *
 * <p>Works on any {@link BinlogSource}: over the tiered view, files that only the archive holds are
 * fetched (and waited for, up to the fetch timeout) when they must be scanned.
 *
 * <p>Thread-safe: each call reads the source's current files on its own.
 */
public final class StopPointFinder {
  /** How long a scan waits for an archived file's fetch by default. */
  public static final Duration DEFAULT_FETCH_TIMEOUT = Duration.ofMinutes(5);

  private final BinlogSource store;
  private final PitrFlavor flavor;
  private final Duration fetchTimeout;

  public StopPointFinder(BinlogSource store) {
    this(store, DEFAULT_FETCH_TIMEOUT);
  }

  /**
   * @param fetchTimeout how long a scan waits for an archived file's local copy
   */
  public StopPointFinder(BinlogSource store, Duration fetchTimeout) {
    this.store = Objects.requireNonNull(store, "store");
    this.flavor = PitrFlavor.of(store.flavor());
    this.fetchTimeout = Objects.requireNonNull(fetchTimeout, "fetchTimeout");
  }

  /**
   * Opens {@code file} of {@code source} for reading, waiting up to {@code fetchTimeout} for an
   * archived file's local copy (what a download of a file to roll forward with needs).
   *
   * @throws IOException if the file cannot be opened, or its fetch failed or timed out
   */
  public static OpenedFile open(BinlogSource source, String file, Duration fetchTimeout)
      throws IOException {
    return CommitTimeReader.openWaiting(source, file, fetchTimeout);
  }

  /**
   * Stops after every transaction that committed before {@code t} and before the first one that
   * committed at or after it ({@code t} itself is excluded). If every stored transaction committed
   * before {@code t}, stops at the last one (the reason says so: the relay may not have received
   * later ones yet).
   *
   * @throws StopPointException if the store is empty or the first stored transaction did not commit
   *     before {@code t}
   */
  public StopPoint beforeTime(Instant t) throws IOException, StopPointException {
    Objects.requireNonNull(t, "t");
    long micros = ceilMicros(t);
    List<FileMetadata> files = nonEmptyFiles();
    int first = 0;
    while (first < files.size() - 1 && committedBefore(files.get(first + 1), micros)) {
      first++;
    }
    Walk walk = walkFrom(files, first, tx -> tx.latestCommitMicros() >= micros);
    if (walk.stoppedAt() == null) {
      if (walk.last() == null) {
        walk = lastBefore(files, files.size(), "the store holds no transaction");
      }
      return stopAfter(
          walk,
          "every stored transaction committed before "
              + t
              + "; the last one is the store's end (later transactions may not be in the relay"
              + " yet)");
    }
    CommittedTransaction next = walk.stoppedAt();
    if (walk.last() == null) {
      walk =
          lastBefore(
              files,
              walk.stoppedAtFile(),
              "no stored transaction committed before " + t + " (the oldest is " + next + ")");
    }
    return stopAfter(
        walk, "the last transaction committed before " + t + "; the next one is " + next);
  }

  /**
   * Stops right before the transaction {@code gtid} (written as the server prints it): after the
   * transaction logged before it.
   *
   * @throws StopPointException if the store is empty, does not hold {@code gtid}, or holds nothing
   *     before it
   * @throws IllegalArgumentException if {@code gtid} is not a GTID of the store's flavour
   */
  public StopPoint beforeGtid(String gtid) throws IOException, StopPointException {
    Object target = flavor.parseGtid(Objects.requireNonNull(gtid, "gtid"));
    List<FileMetadata> files = nonEmptyFiles();
    if (flavor.contains(files.get(0).gtidsAtStart(), target)) {
      throw new StopPointException(
          Reason.GTID_NOT_FOUND,
          "GTID "
              + target
              + " is before the oldest stored file "
              + files.get(0).name()
              + " (its start set is '"
              + oneLine(files.get(0).gtidsAtStart())
              + "'): it was purged from the relay");
    }
    for (int i = 0; i < files.size(); i++) {
      FileMetadata f = files.get(i);
      if (flavor.contains(f.gtidsAtEnd(), target)) {
        Walk walk = walk(f, tx -> target.equals(tx.gtid()));
        if (walk.stoppedAt() == null) {
          break;
        }
        CommittedTransaction next = walk.stoppedAt();
        if (walk.last() == null) {
          walk = lastBefore(files, i, target + " is the oldest stored transaction");
        }
        return stopAfter(walk, "right before " + next);
      }
    }
    throw new StopPointException(
        Reason.GTID_NOT_FOUND,
        "GTID "
            + target
            + " is not in the stored binlog ("
            + files.get(0).name()
            + " to "
            + files.get(files.size() - 1).name()
            + ", which end at '"
            + oneLine(files.get(files.size() - 1).gtidsAtEnd())
            + "')");
  }

  /**
   * Stops after the last transaction (in binlog order) whose GTID is in {@code gtids}: once a
   * server has applied up to there, it has executed all of {@code gtids} that the binlog has.
   *
   * @throws StopPointException if the store is empty, {@code gtids} has GTIDs the store never
   *     logged, or no stored transaction is in {@code gtids} (all of it is before the oldest file)
   * @throws IllegalArgumentException if {@code gtids} is of the other flavour
   */
  public StopPoint afterGtids(GtidSet gtids) throws IOException, StopPointException {
    Objects.requireNonNull(gtids, "gtids");
    if (gtids.flavor() != store.flavor()) {
      throw new IllegalArgumentException(
          "a " + gtids.flavor() + " GTID set for a " + store.flavor() + " store");
    }
    List<FileMetadata> files = nonEmptyFiles();
    GtidSet stored = files.get(files.size() - 1).gtidsAtEnd();
    if (!stored.containsAll(gtids)) {
      throw new StopPointException(
          Reason.GTIDS_NOT_STORED,
          "the relay has not logged '"
              + oneLine(flavor.missing(stored, gtids))
              + "' of the set (it has '"
              + oneLine(stored)
              + "'): wait until it has, or leave those GTIDs out");
    }
    // A file whose start set holds all of gtids has none of its transactions in it; the newest
    // file whose start set does not is where the last one is.
    for (int i = files.size() - 1; i >= 0; i--) {
      FileMetadata f = files.get(i);
      if (f.gtidsAtStart().containsAll(gtids)) {
        continue;
      }
      Walk walk = walk(f, tx -> false, tx -> flavor.contains(gtids, tx.gtid()));
      if (walk.last() != null) {
        return stopAfter(walk, "after " + walk.last() + ", the last transaction of the set");
      }
    }
    throw new StopPointException(
        Reason.BEFORE_FIRST_TRANSACTION,
        "no stored transaction is in the set: all of it is before the oldest stored file "
            + files.get(0).name()
            + " (start set '"
            + oneLine(files.get(0).gtidsAtStart())
            + "'), so there is nothing to roll forward");
  }

  /** The instant of {@code micros} microseconds since the epoch. */
  static Instant instantOfMicros(long micros) {
    return Instant.ofEpochSecond(
        Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L);
  }

  /** {@code t} in microseconds, rounded up: a commit at microsecond m is before t iff m < this. */
  private static long ceilMicros(Instant t) {
    long micros =
        Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000L), t.getNano() / 1000);
    return t.getNano() % 1000 == 0 ? micros : micros + 1;
  }

  /**
   * True if every transaction of the file before {@code next} committed before {@code micros}: that
   * file was rotated (so all its transactions had committed) before {@code next} was opened.
   */
  private static boolean committedBefore(FileMetadata next, long micros) {
    return next.firstEventTime() > 0 && next.firstEventTime() * 1_000_000L + 999_999 < micros;
  }

  private List<FileMetadata> nonEmptyFiles() throws StopPointException {
    List<FileMetadata> files = store.files();
    if (files.isEmpty()) {
      throw new StopPointException(
          Reason.EMPTY_STORE, "the relay stores no binlog file yet: there is nothing to stop in");
    }
    return files;
  }

  /**
   * The last transaction before file {@code index}: the last one of the nearest earlier file that
   * has any.
   *
   * @param why why nothing is before the stop, for the message if there is nothing
   */
  private Walk lastBefore(List<FileMetadata> files, int index, String why)
      throws IOException, StopPointException {
    for (int i = index - 1; i >= 0; i--) {
      Walk walk = walk(files.get(i), tx -> false);
      if (walk.last() != null) {
        return walk;
      }
    }
    throw new StopPointException(
        Reason.BEFORE_FIRST_TRANSACTION,
        "nothing to roll forward: "
            + why
            + " (the store starts at "
            + files.get(0).name()
            + " with '"
            + oneLine(files.get(0).gtidsAtStart())
            + "'; a backup at that set has nothing to roll forward)");
  }

  /** Walks files from {@code first} on until a transaction satisfies {@code stopBefore}. */
  private Walk walkFrom(
      List<FileMetadata> files, int first, Predicate<CommittedTransaction> stopBefore)
      throws IOException {
    Walk last = null;
    for (int i = first; i < files.size(); i++) {
      Walk walk = walk(files.get(i), stopBefore).at(i);
      if (walk.stoppedAt() != null) {
        return walk.last() != null || last == null ? walk : last.stoppedAt(walk);
      }
      if (walk.last() != null) {
        last = walk;
      }
    }
    return last != null ? last : new Walk(null, null, null, first);
  }

  private Walk walk(FileMetadata file, Predicate<CommittedTransaction> stopBefore)
      throws IOException {
    return walk(file, stopBefore, tx -> true);
  }

  /**
   * Reads {@code file}'s transactions until one satisfies {@code stopBefore}: the last one before
   * it that satisfies {@code candidate}, with the GTID set after it.
   */
  private Walk walk(
      FileMetadata file,
      Predicate<CommittedTransaction> stopBefore,
      Predicate<CommittedTransaction> candidate)
      throws IOException {
    GtidSet set = file.gtidsAtStart();
    CommittedTransaction last = null;
    GtidSet atLast = null;
    try (CommitTimeReader reader = CommitTimeReader.open(store, file.name(), fetchTimeout)) {
      for (CommittedTransaction tx = reader.next(); tx != null; tx = reader.next()) {
        if (stopBefore.test(tx)) {
          return new Walk(last, atLast, tx, -1);
        }
        flavor.add(set, tx.gtid());
        if (candidate.test(tx)) {
          last = tx;
          atLast = set.copy();
        }
      }
    }
    return new Walk(last, atLast, null, -1);
  }

  private static StopPoint stopAfter(Walk walk, String reason) {
    CommittedTransaction last = walk.last();
    return new StopPoint(
        last.endPosition(),
        walk.after(),
        last.commitMicros(),
        last.gtid() == null ? null : last.gtid().toString(),
        reason);
  }

  private static String oneLine(Object o) {
    return o.toString().replace("\n", "");
  }

  /**
   * The outcome of a walk: the last transaction included and the set after it ({@code null} if
   * none), the transaction the walk stopped before ({@code null} if it reached the end) and the
   * index of the file it stopped in.
   */
  private record Walk(
      CommittedTransaction last, GtidSet after, CommittedTransaction stoppedAt, int stoppedAtFile) {

    Walk at(int index) {
      return new Walk(last, after, stoppedAt, index);
    }

    Walk stoppedAt(Walk later) {
      return new Walk(last, after, later.stoppedAt, later.stoppedAtFile);
    }
  }
}
