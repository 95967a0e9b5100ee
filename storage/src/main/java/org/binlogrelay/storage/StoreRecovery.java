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
 *   <li>Every file but the last: trusted if its metadata is intact, says closed, and its size matches the
 *       file; otherwise the file is scanned whole ({@link FileScan}) and its metadata rebuilt (logged).
 *       A closed file that fails its scan (which only a power loss that reordered writes can cause) is cut
 *       at its last good transaction boundary and every later file is removed: the store stays a prefix.
 *   <li>The last file: scanned from its checkpoint (or from its start without usable metadata); cut at the
 *       last transaction boundary before the first incomplete or bad event, or removed if it does not hold
 *       a complete FORMAT_DESCRIPTION (a crash right after it was created). If it ends with ROTATE or
 *       STOP it is closed; otherwise it is forced and a fresh checkpoint written.
 * </ol>
 *
 * Every cut is logged at WARN with file, offset, bytes and reason, and listed in the {@link
 * RecoveryReport}. Work is proportional to the number of files (one small metadata read each) plus the
 * tail since its checkpoint. Used once per {@link BinlogStore#open}; not thread-safe.
 *
 * <p><b>Without writing</b> ({@link #withoutWriting}): for a directory that does not take writes (a full disk),
 * the same state is computed from reads alone and nothing on disk changes: cuts and removals are logical (the
 * state ends at the last complete transaction; files to remove are left out of it), closes, in-use bits,
 * metadata, the index and leftover deletions are left for later, and the tail's channel is opened read-only.
 * {@link BinlogStore#tryResume()} later recovers again with writes, which makes the same state physical.
 */
final class StoreRecovery {
  private static final Logger log = LoggerFactory.getLogger(StoreRecovery.class);

  /** The recovered state the store starts from. */
  record Recovered(String indexName, List<FileMetadata> files, OpenFile tail, String pendingNextFile,
      GtidSet executed, Position end, RecoveryReport report) {}

  private final StoreDirectory dir;
  private final BinlogFlavor flavor;
  private final StoreConfig config;
  private final FileScan scan;
  /** False: compute the state from reads alone, change nothing on disk. */
  private final boolean writes;
  private final List<Truncation> truncations = new ArrayList<>();
  private final List<String> actions = new ArrayList<>();
  private int filesScanned;
  private long bytesScanned;

  StoreRecovery(StoreDirectory dir, BinlogFlavor flavor, StoreConfig config) {
    this(dir, flavor, config, true);
  }

  private StoreRecovery(StoreDirectory dir, BinlogFlavor flavor, StoreConfig config, boolean writes) {
    this.dir = dir;
    this.flavor = flavor;
    this.config = config;
    this.writes = writes;
    this.scan = new FileScan(flavor, config.maxEventSize());
  }

  /**
   * A recovery that only reads: it finds the state a writing recovery would leave, and changes nothing on disk
   * (see the class comment). Its tail's channel is read-only.
   */
  static StoreRecovery withoutWriting(StoreDirectory dir, BinlogFlavor flavor, StoreConfig config) {
    return new StoreRecovery(dir, flavor, config, false);
  }

  Recovered recover() throws IOException {
    long started = config.time().nanoseconds();
    IndexRepair repair = new IndexRepair(dir, writes);
    List<String> names = new ArrayList<>(repair.run());
    actions.addAll(repair.actions());
    boolean indexChanged = repair.changed();
    String pendingNext = repair.missingLast();

    List<FileMetadata> files = new ArrayList<>();
    GtidSet before = flavor.emptyGtids();
    OpenFile tail = null;
    for (int i = 0; i < names.size(); i++) {
      String name = names.get(i);
      boolean last = i == names.size() - 1;
      FileMetadata meta = readMetadata(name);
      long size = dir.size(name);
      if (meta != null && meta.closed() && meta.size() == size) {
        files.add(meta);
        before = meta.gtidsAtEnd();
        continue;
      }
      if (meta != null && meta.closed()) {
        act(name + " is " + size + " bytes but its metadata says it was closed at " + meta.size()
            + "; scanning it");
        meta = null;
      }
      FileScan.Result result = scanFile(name, size, last ? meta : null, before);
      if (result.empty()) {
        cut(result, 0, "holds no complete FORMAT_DESCRIPTION");
        removeFile(name);
        indexChanged = true;
        pendingNext = name;
        removeLater(names, i + 1, name);
        break;
      }
      if (!result.clean()) {
        cut(result, result.boundary(), result.problem());
        if (!last) {
          removeLater(names, i + 1, name);
          indexChanged = true;
          last = true;
        }
      }
      FileStats stats = result.stats();
      if (!last || stats.ending() != FileMetadata.Ending.NONE) {
        FileMetadata closed = close(name, result);
        files.add(closed);
        before = closed.gtidsAtEnd();
        if (last) {
          break;
        }
        continue;
      }
      tail = reopen(name, result);
      files.add(tail.checkpoint(flavor));
      before = result.gtidsAtBoundary();
      break;
    }
    String indexName = repair.indexName();
    if (files.isEmpty() && indexName != null) {
      if (writes) {
        dir.delete(indexName); // an empty store takes the name of its first file's index
      }
      indexName = null;
    } else if (indexChanged && indexName != null && writes) {
      List<String> kept = new ArrayList<>();
      for (FileMetadata f : files) {
        kept.add(f.name());
      }
      BinlogIndex.write(dir, indexName, kept);
    }
    if (writes) {
      dir.force();
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
    RecoveryReport report = new RecoveryReport(truncations, actions, end, next, before, filesScanned,
        bytesScanned, took);
    log.debug("binlog store {} recovered in {} ms: {} files, end {}, next upstream position {}, {} truncations,"
        + " {} repairs, {} bytes scanned", dir, took.toMillis(), files.size(), end, next, truncations.size(),
        actions.size(), bytesScanned);
    return new Recovered(indexName, files, tail, pendingNext, before, end, report);
  }

  private FileMetadata readMetadata(String name) throws IOException {
    try {
      return MetadataFile.read(dir, name, flavor);
    } catch (MetadataFile.DamagedException e) {
      act("metadata of " + name + " is damaged (" + e.getMessage() + "); rebuilding it by scanning " + name);
      return null;
    }
  }

  /** Scans from {@code checkpoint} when usable, else from the start. */
  private FileScan.Result scanFile(String name, long size, FileMetadata checkpoint, GtidSet before)
      throws IOException {
    try (FileChannel ch = FileChannel.open(dir.resolve(name), StandardOpenOption.READ)) {
      FileScan.Result result;
      if (checkpoint != null && checkpoint.size() >= BinlogFileName.FIRST_EVENT_OFFSET && checkpoint.size() <= size) {
        result = scan.fromCheckpoint(ch, size, checkpoint);
      } else {
        if (checkpoint != null) {
          act("checkpoint of " + name + " at " + checkpoint.size() + " is past the file's " + size
              + " bytes; scanning " + name + " from its start");
        } else {
          log.info("binlog store {}: no usable metadata for {}; scanning it from its start", dir, name);
        }
        result = scan.fromStart(ch, name, size, before);
      }
      filesScanned++;
      bytesScanned += result.bytesRead();
      if (result.format() != null && !flavor.wrote(result.format())) {
        throw new StoreCorruptException("binlog store " + dir + " is configured for " + flavor.gtidFlavor()
            + " but " + name + " was written by " + result.format().serverVersion()
            + "; open it with the right flavour");
      }
      return result;
    }
  }

  /**
   * Closes a complete file: in-use flag per its ending (cleared after ROTATE or STOP, and, if the flavour's server
   * does so after a crash, for a file the primary abandoned: here one followed by a later file), force, closed
   * metadata.
   */
  private FileMetadata close(String name, FileScan.Result result) throws IOException {
    FileStats stats = result.stats();
    FileMetadata closed = stats.snapshot(flavor, true, result.boundary(), result.gtidsAtBoundary());
    if (!writes) {
      log.info("binlog store {}: {} ends at {} ({} ending); closing it waits until the store accepts writes", dir,
          name, result.boundary(), stats.ending());
      return closed;
    }
    try (BinlogFile file = BinlogFile.open(dir, name)) {
      if (file.size() != result.boundary()) {
        file.truncate(result.boundary());
      }
      if (stats.ending() != FileMetadata.Ending.NONE || flavor.clearsInUseAfterCrash()) {
        file.setInUse(false);
      }
      file.force();
    }
    MetadataFile.write(dir, closed, flavor);
    log.info("binlog store {}: {} closed at {} ({} ending)", dir, name, result.boundary(), stats.ending());
    return closed;
  }

  /**
   * Opens the tail for appending at its recovered end, forced and checkpointed; without writes, opens it read-only
   * and leaves the file as it is (its bytes past the recovered end are cut when the store accepts writes).
   */
  private OpenFile reopen(String name, FileScan.Result result) throws IOException {
    if (!writes) {
      FileTracker tracker = flavor.newTracker(result.boundary(), result.format(), result.gtidsAtBoundary());
      return new OpenFile(BinlogFile.openForReading(dir, name), tracker, result.stats(), result.boundary(),
          config.time().nanoseconds());
    }
    BinlogFile file = BinlogFile.open(dir, name);
    try {
      if (file.size() != result.boundary()) {
        file.truncate(result.boundary());
      }
      file.setInUse(true); // open again, as the primary's file was at this point
      file.force();
      FileTracker tracker = flavor.newTracker(result.boundary(), result.format(), result.gtidsAtBoundary());
      OpenFile open = new OpenFile(file, tracker, result.stats(), result.boundary(), config.time().nanoseconds());
      MetadataFile.write(dir, open.checkpoint(flavor), flavor);
      return open;
    } catch (IOException | RuntimeException e) {
      file.close();
      throw e;
    }
  }

  private void cut(FileScan.Result result, long to, String reason) {
    Truncation t = new Truncation(result.name(), to, result.length() - to,
        result.problemOffset() < 0 ? to : result.problemOffset(), reason);
    log.warn("binlog store {}: recovery {}", dir, t);
    truncations.add(t);
  }

  private void removeFile(String name) throws IOException {
    if (!writes) {
      return; // left out of the state; removed when the store accepts writes
    }
    dir.delete(name);
    dir.delete(MetadataFile.nameFor(name));
  }

  /** Removes the files after a damaged one, so the store stays a prefix of the primary's binlog. */
  private void removeLater(List<String> names, int from, String damaged) throws IOException {
    for (String later : names.subList(from, names.size())) {
      long size = dir.size(later);
      Truncation t = new Truncation(later, 0, size, 0, "removed because the earlier file " + damaged
          + " was cut");
      log.warn("binlog store {}: recovery {}", dir, t);
      truncations.add(t);
      removeFile(later);
    }
  }

  private void act(String action) {
    log.warn("binlog store {}: {}", dir, action);
    actions.add(action);
  }
}
