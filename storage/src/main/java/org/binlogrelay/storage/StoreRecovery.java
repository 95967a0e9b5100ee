package org.binlogrelay.storage;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings a store directory to a consistent state after any stop, clean or not (Kafka's {@code
 * LogSegment.recover} for a binlog). In order:
 *
 * <ol>
 *   <li>{@link IndexRepair}: index and directory agree.
 *   <li>Every file but the last: trusted if its metadata is intact, says closed, and its size
 *       matches the file; otherwise the file is scanned whole ({@link FileScan}) and its metadata
 *       rebuilt (logged). A closed file that fails its scan (which only a power loss that reordered
 *       writes can cause) is cut at its last good transaction boundary and every later file is
 *       removed: the store stays a prefix.
 *   <li>The last file: scanned from its checkpoint (or from its start without usable metadata); cut
 *       at the last transaction boundary before the first incomplete or bad event, or removed if it
 *       does not hold a complete FORMAT_DESCRIPTION (a crash right after it was created). If it
 *       ends with ROTATE or STOP it is closed; otherwise it is forced and a fresh checkpoint
 *       written.
 * </ol>
 *
 * Every cut is logged at WARN with file, offset, bytes and reason, and listed in the {@link
 * RecoveryReport}. Work is proportional to the number of files (one small metadata read each) plus
 * the tail since its checkpoint. Used once per {@link BinlogStore#open}; not thread-safe.
 *
 * <p>{@link #recover()} is a loop over the files calling {@link #recoverFile}, which decides what
 * one file is and returns a {@link Verdict}: intact, closed (maybe cut), reopened as the tail
 * (maybe cut), or removed. What a decision does on disk is its {@link RecoveryStrategy}'s: {@link
 * InPlaceRecovery} makes it physical at once; {@link ReadOnlyRecovery} ({@link #withoutWriting}),
 * for a directory that does not take writes (a full disk), changes nothing on disk and leaves the
 * same state for {@link BinlogStore#tryResume()} to make physical later.
 */
final class StoreRecovery {
  private static final Logger LOG = LoggerFactory.getLogger(StoreRecovery.class);

  /** The recovered state the store starts from. */
  record Recovered(
      String indexName,
      List<FileMetadata> files,
      OpenFile tail,
      String pendingNextFile,
      GtidSet executed,
      Position end,
      RecoveryReport report) {}

  /**
   * What recovery made of one file ({@link #recoverFile}). A file cut short ends the store: the
   * files after it are removed (before it is closed or reopened, so that a crash in between still
   * finds it damaged).
   */
  sealed interface Verdict {
    /** The file's metadata as the store keeps it, {@code null} if the file was removed. */
    FileMetadata kept();

    /** The GTID set at the end of what is kept of the file. */
    GtidSet gtidsAtEnd();

    /** What was cut from the file, {@code null} if nothing. */
    Truncation cut();

    /** True if no file after this one is kept: it was cut, removed, or reopened as the tail. */
    boolean endsStore();

    /** Its metadata is intact, says closed, and matches its size: kept without reading the file. */
    record Intact(FileMetadata kept) implements Verdict {
      @Override
      public GtidSet gtidsAtEnd() {
        return kept.gtidsAtEnd();
      }

      @Override
      public Truncation cut() {
        return null;
      }

      @Override
      public boolean endsStore() {
        return false;
      }
    }

    /**
     * Scanned, and closed at its last transaction boundary ({@code cut} there if not {@code null}).
     */
    record Closed(FileMetadata kept, Truncation cut) implements Verdict {
      @Override
      public GtidSet gtidsAtEnd() {
        return kept.gtidsAtEnd();
      }

      @Override
      public boolean endsStore() {
        return cut != null;
      }
    }

    /**
     * Scanned, and reopened as the store's tail at its last transaction boundary ({@code cut} there
     * if not {@code null}); {@code kept} is its checkpoint there.
     */
    record Open(OpenFile tail, FileMetadata kept, GtidSet gtidsAtEnd, Truncation cut)
        implements Verdict {
      @Override
      public boolean endsStore() {
        return true;
      }
    }

    /** Holds no complete FORMAT_DESCRIPTION (a crash right after it was created): removed. */
    record Removed(String name, GtidSet gtidsAtEnd, Truncation cut) implements Verdict {
      @Override
      public FileMetadata kept() {
        return null;
      }

      @Override
      public boolean endsStore() {
        return true;
      }
    }
  }

  private final StoreDirectory dir;
  private final BinlogFlavor flavor;
  private final StoreConfig config;
  private final FileScan scan;
  private final RecoveryStrategy strategy;
  private final List<Truncation> truncations = new ArrayList<>();
  private final List<String> actions = new ArrayList<>();
  private int filesScanned;
  private long bytesScanned;

  /** A recovery that repairs the directory in place ({@link InPlaceRecovery}). */
  StoreRecovery(StoreDirectory dir, BinlogFlavor flavor, StoreConfig config) {
    this(dir, flavor, config, new InPlaceRecovery(dir, flavor, config));
  }

  private StoreRecovery(
      StoreDirectory dir, BinlogFlavor flavor, StoreConfig config, RecoveryStrategy strategy) {
    this.dir = dir;
    this.flavor = flavor;
    this.config = config;
    this.strategy = strategy;
    this.scan = new FileScan(flavor, config.maxEventSize());
  }

  /**
   * A recovery that only reads ({@link ReadOnlyRecovery}): it finds the state an in-place recovery
   * would leave, and changes nothing on disk. Its tail's channel is read-only.
   */
  static StoreRecovery withoutWriting(StoreDirectory dir, BinlogFlavor flavor, StoreConfig config) {
    return new StoreRecovery(dir, flavor, config, new ReadOnlyRecovery(dir, flavor, config));
  }

  Recovered recover() throws IOException {
    long started = config.time().nanoseconds();
    IndexRepair repair = strategy.indexRepair();
    List<String> names = new ArrayList<>(repair.run());
    actions.addAll(repair.actions());
    String pendingNext = repair.missingLast();

    List<FileMetadata> files = new ArrayList<>();
    GtidSet before = flavor.emptyGtids();
    OpenFile tail = null;
    for (int i = 0; i < names.size(); i++) {
      Verdict verdict = recoverFile(names, i, before);
      if (verdict instanceof Verdict.Removed removed) {
        pendingNext = removed.name();
      } else {
        files.add(verdict.kept());
      }
      if (verdict instanceof Verdict.Open open) {
        tail = open.tail();
      }
      before = verdict.gtidsAtEnd();
      if (verdict.endsStore()) {
        break;
      }
    }
    String indexName = repair.indexName();
    boolean indexChanged =
        repair.changed() || files.size() < names.size(); // or recovery removed files
    strategy.finish(indexName, files, indexChanged);
    if (files.isEmpty()) {
      indexName = null; // an empty store takes the name of its first file's index
    }
    Position end = null;
    Position next = pendingNext == null ? null : Position.startOf(pendingNext);
    if (tail != null) {
      end = tail.boundary();
      next = end;
    } else if (!files.isEmpty()) {
      FileMetadata lastFile = files.get(files.size() - 1);
      end = new Position(lastFile.name(), lastFile.size());
      if (lastFile.ending() == FileMetadata.Ending.ROTATE) {
        next = Position.startOf(lastFile.nextFile());
        pendingNext = lastFile.nextFile();
      } else if (next == null) {
        next = end;
      }
    }
    Duration took = Duration.ofNanos(config.time().nanoseconds() - started);
    RecoveryReport report =
        new RecoveryReport(
            truncations, actions, end, next, before, filesScanned, bytesScanned, took);
    LOG.debug(
        "binlog store {} recovered in {} ms: {} files, end {}, next upstream position {}, {} truncations,"
            + " {} repairs, {} bytes scanned",
        dir,
        took.toMillis(),
        files.size(),
        end,
        next,
        truncations.size(),
        actions.size(),
        bytesScanned);
    return new Recovered(indexName, files, tail, pendingNext, before, end, report);
  }

  /**
   * Recovers {@code names.get(i)}, the files before it kept with the GTID set {@code before} at
   * their end: trusts intact closed metadata; otherwise scans the file (from its checkpoint if it
   * is the last one), cuts it at the last transaction boundary before a problem (removing every
   * later file first), and closes it, or reopens it as the store's tail if it is the last file kept
   * and has no ROTATE or STOP. A file without a complete FORMAT_DESCRIPTION is removed with every
   * later file.
   */
  Verdict recoverFile(List<String> names, int i, GtidSet before) throws IOException {
    String name = names.get(i);
    boolean last = i == names.size() - 1;
    FileMetadata meta = readMetadata(name);
    long size = dir.size(name);
    if (meta != null && meta.closed() && meta.size() == size) {
      return new Verdict.Intact(meta);
    }
    if (meta != null && meta.closed()) {
      act(
          name
              + " is "
              + size
              + " bytes but its metadata says it was closed at "
              + meta.size()
              + "; scanning it");
      meta = null;
    }
    FileScan.Result result = scanFile(name, size, last ? meta : null, before);
    if (result.empty()) {
      Truncation cut = cut(result, 0, "holds no complete FORMAT_DESCRIPTION");
      strategy.remove(name);
      removeLater(names, i + 1, name);
      return new Verdict.Removed(name, before, cut);
    }
    Truncation cut = null;
    if (!result.clean()) {
      cut = cut(result, result.boundary(), result.problem());
      removeLater(names, i + 1, name);
    }
    boolean endsStore = last || cut != null;
    if (!endsStore || result.stats().ending() != FileMetadata.Ending.NONE) {
      return new Verdict.Closed(strategy.close(name, result), cut);
    }
    OpenFile tail = strategy.reopen(name, result);
    return new Verdict.Open(tail, tail.checkpoint(flavor), result.gtidsAtBoundary(), cut);
  }

  private FileMetadata readMetadata(String name) throws IOException {
    try {
      return MetadataFile.read(dir, name, flavor);
    } catch (MetadataFile.DamagedException e) {
      act(
          "metadata of "
              + name
              + " is damaged ("
              + e.getMessage()
              + "); rebuilding it by scanning "
              + name);
      return null;
    }
  }

  /** Scans from {@code checkpoint} when usable, else from the start. */
  private FileScan.Result scanFile(String name, long size, FileMetadata checkpoint, GtidSet before)
      throws IOException {
    try (FileChannel ch = FileChannel.open(dir.resolve(name), StandardOpenOption.READ)) {
      FileScan.Result result;
      if (checkpoint != null
          && checkpoint.size() >= BinlogFileName.FIRST_EVENT_OFFSET
          && checkpoint.size() <= size) {
        result = scan.fromCheckpoint(ch, size, checkpoint);
      } else {
        if (checkpoint != null) {
          act(
              "checkpoint of "
                  + name
                  + " at "
                  + checkpoint.size()
                  + " is past the file's "
                  + size
                  + " bytes; scanning "
                  + name
                  + " from its start");
        } else {
          LOG.info(
              "binlog store {}: no usable metadata for {}; scanning it from its start", dir, name);
        }
        result = scan.fromStart(ch, name, size, before);
      }
      filesScanned++;
      bytesScanned += result.bytesRead();
      if (result.format() != null && !flavor.wrote(result.format())) {
        throw new StoreCorruptException(
            "binlog store "
                + dir
                + " is configured for "
                + flavor.gtidFlavor()
                + " but "
                + name
                + " was written by "
                + result.format().serverVersion()
                + "; open it with the right flavour");
      }
      return result;
    }
  }

  private Truncation cut(FileScan.Result result, long to, String reason) {
    Truncation t =
        new Truncation(
            result.name(),
            to,
            result.length() - to,
            result.problemOffset() < 0 ? to : result.problemOffset(),
            reason);
    LOG.warn("binlog store {}: recovery {}", dir, t);
    truncations.add(t);
    return t;
  }

  /** Removes the files after a damaged one, so the store stays a prefix of the primary's binlog. */
  private void removeLater(List<String> names, int from, String damaged) throws IOException {
    for (String later : names.subList(from, names.size())) {
      long size = dir.size(later);
      Truncation t =
          new Truncation(
              later, 0, size, 0, "removed because the earlier file " + damaged + " was cut");
      LOG.warn("binlog store {}: recovery {}", dir, t);
      truncations.add(t);
      strategy.remove(later);
    }
  }

  private void act(String action) {
    LOG.warn("binlog store {}: {}", dir, action);
    actions.add(action);
  }
}
