package org.binlogrelay.storage;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One attempt of {@link BinlogStore#tryResume()}, up to the recovered state the store then adopts:
 *
 * <ol>
 *   <li>a probe: write, force and delete {@code .resume-probe.tmp} of 16 KiB, or of the largest
 *       write that failed if bigger (up to 1 MiB), so a store stopped by a big event resumes only
 *       once it fits;
 *   <li>retire the writer, stop the syncer (its last round forces what it can), close the writer's
 *       files;
 *   <li>if a binlog file's force failed, cut the store back to the durable boundary: after a failed
 *       {@code fsync} nothing after it is known to be on disk, whatever the page cache shows
 *       ({@link #cutBackToDurable}); if the syncer failed otherwise (a metadata or index write),
 *       write every byte after the durable boundary again and force it ({@link
 *       BinlogFile#rewriteFrom});
 *   <li>recover the directory in place with {@link StoreRecovery}, as {@link BinlogStore#open}
 *       does.
 * </ol>
 *
 * Every step is safe to repeat: a failed attempt leaves the store stopped and the next attempt
 * starts over. Not thread-safe: the store serialises attempts (and holds off retention during
 * them).
 */
final class Resumption {
  private static final Logger LOG = LoggerFactory.getLogger(Resumption.class);

  /**
   * Name (before {@code .tmp}) of the probe file; recovery deletes a leftover like any {@code
   * *.tmp}.
   */
  static final String PROBE = ".resume-probe";

  static final int MIN_PROBE_BYTES = 16 << 10;
  static final int MAX_PROBE_BYTES = 1 << 20;

  /**
   * What an attempt that worked recovered, and the files whose close job never ran (recovery closed
   * them).
   */
  record Result(StoreRecovery.Recovered recovered, List<String> abandonedCloses) {}

  private final StoreDirectory dir;
  private final BinlogFlavor flavor;
  private final StoreConfig config;
  private final FileCatalog catalog;
  private final StoreWatch durable;
  private final Availability availability;

  Resumption(
      StoreDirectory dir,
      BinlogFlavor flavor,
      StoreConfig config,
      FileCatalog catalog,
      StoreWatch durable,
      Availability availability) {
    this.dir = dir;
    this.flavor = flavor;
    this.config = config;
    this.catalog = catalog;
    this.durable = durable;
    this.availability = availability;
  }

  /**
   * Runs the steps; returns the recovered state, or {@code null} if a step failed (the error is
   * recorded in {@link Availability#resumeFailed}, logged at WARN, and the store stays stopped).
   */
  Result attempt(StoreWriter oldWriter, Syncer oldSyncer) {
    int probe =
        (int) Math.max(MIN_PROBE_BYTES, Math.min(availability.failedWriteBytes(), MAX_PROBE_BYTES));
    String step =
        "writing and forcing "
            + probe
            + " bytes to "
            + dir.resolve(PROBE + StoreDirectory.TEMP_SUFFIX)
            + " (a probe)";
    try {
      dir.probe(PROBE, probe);
      oldWriter.retire();
      step = "waiting for the syncer to stop";
      oldSyncer.stop();
      step = "closing the files of the stopped writer";
      oldWriter.closeFiles();
      if (oldSyncer.forceFailed() || oldWriter.forceFailed()) {
        step = "cutting the store back to the durable boundary " + durable.position();
        cutBackToDurable();
      } else if (oldSyncer.failure() != null) {
        step =
            "writing again and forcing the bytes after the durable boundary " + durable.position();
        rewriteAfterDurable();
      }
      step = "recovering " + dir + " in place";
      StoreRecovery.Recovered r = new StoreRecovery(dir, flavor, config).recover();
      return new Result(r, oldWriter.abandonedCloses());
    } catch (IOException e) {
      availability.resumeFailed(e, step);
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      availability.resumeFailed(e, step);
      return null;
    }
  }

  /**
   * Every byte after the durable boundary, in every file from its file on, written again and
   * forced.
   */
  private void rewriteAfterDurable() throws IOException {
    Position from = durable.position();
    long total = 0;
    for (String name : catalog.names()) {
      long sequence = BinlogFileName.sequence(name);
      if (from != null && sequence < from.fileSequence() || !dir.exists(name)) {
        continue;
      }
      long start = from != null && sequence == from.fileSequence() ? from.offset() : 0;
      total += BinlogFile.rewriteFrom(dir, name, start);
    }
    LOG.info(
        "binlog store {}: wrote {} bytes after the durable boundary {} again and forced them, since the syncer"
            + " had failed",
        dir,
        total,
        from);
  }

  /**
   * Cuts the store back to the durable boundary: the index rewritten to end at the boundary's file,
   * every later file deleted (newest first, with its metadata), the boundary's file truncated there
   * and forced, and its metadata deleted (recovery rebuilds it by scanning; a checkpoint recorded
   * by a force that succeeded before the round's force failed may lie past the boundary). The
   * primary sends the cut transactions again.
   *
   * <p>Why not write the bytes again from the page cache: after a failed writeback, ext4 leaves the
   * blocks it had allocated as unwritten extents ("failed to convert unwritten extents ...
   * potential data loss"), and writing the same pages again and forcing them succeeds without
   * converting them: the page cache shows the data, the disk reads back zeros once the pages are
   * evicted (seen on Linux 6.18, ext4 on a loop device whose backing tmpfs was full; IoErrorIT).
   * Nothing after the boundary can be told durable from what it reads, so nothing after it is kept.
   * With no durable boundary at all (no force ever succeeded) the first file is emptied: recovery
   * removes it and fetches it again from position 4.
   */
  private void cutBackToDurable() throws IOException {
    Position from = durable.position();
    List<String> names = catalog.names();
    if (names.isEmpty()) {
      return;
    }
    if (from == null) {
      from = new Position(names.get(0), 0);
    }
    LOG.warn(
        "binlog store {}: a force had failed, so nothing after the durable boundary {} is known to be on disk;"
            + " cutting the store back to it (the primary sends the rest again)",
        dir,
        from);
    List<String> kept = new ArrayList<>();
    List<String> later = new ArrayList<>();
    for (String name : names) {
      (BinlogFileName.sequence(name) <= from.fileSequence() ? kept : later).add(name);
    }
    if (!later.isEmpty()) {
      BinlogIndex.write(dir, BinlogIndex.nameFor(names.get(0)), kept);
      Collections.reverse(later);
      for (String name : later) {
        if (dir.exists(name)) {
          long size = dir.size(name);
          dir.delete(name);
          LOG.warn(
              "binlog store {}: deleted {} ({} bytes), after the durable boundary",
              dir,
              name,
              size);
        }
        dir.delete(MetadataFile.nameFor(name));
      }
      dir.force();
    }
    if (dir.exists(from.file())) {
      long size = dir.size(from.file());
      try (FileChannel ch = dir.open(from.file(), StandardOpenOption.WRITE)) {
        if (size > from.offset()) {
          ch.truncate(from.offset());
        }
        ch.force(true); // also when nothing was cut: the disk takes this file's forces again
      }
      if (size > from.offset()) {
        LOG.warn(
            "binlog store {}: cut {} bytes of {} from offset {} (after the durable boundary)",
            dir,
            size - from.offset(),
            from.file(),
            from.offset());
        dir.delete(MetadataFile.nameFor(from.file()));
        dir.force();
      }
    }
  }
}
