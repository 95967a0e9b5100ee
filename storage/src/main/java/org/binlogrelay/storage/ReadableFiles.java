package org.binlogrelay.storage;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's files as readers and start lookups see them: as of the readable boundary, never
 * describing a transaction a reader cannot read yet ({@link BinlogStore#files()}, {@link
 * BinlogStore#readableLength}, {@link BinlogStore#executedGtids()}, {@link
 * BinlogStore#readableSnapshot()}, {@link BinlogStore#purgedGtids()}), and reading them ({@link
 * BinlogStore#openFile}, {@link BinlogStore#verify}).
 *
 * <p>Per file, relative to the readable boundary's file:
 *
 * <ul>
 *   <li>an earlier file is complete (ended by ROTATE or STOP, or followed by a file the primary
 *       started after a crash) and its entry is the writer's final account of it, exact in every
 *       field as soon as the writer reached its end, even before the syncer forced it and wrote its
 *       {@code .meta} ({@code closed} here means complete; see {@link BinlogStore#durable()} for
 *       what is on disk);
 *   <li>the boundary's file: {@code size}, {@code transactions}, {@code gtidsAtEnd}, {@code
 *       firstGtid}, {@code lastGtid} and {@code lastEventTime} are exact at the boundary (from the
 *       writer's record of that very boundary, not from a checkpoint); {@code gtidsAtStart} and
 *       {@code firstEventTime} are the file's header facts; it is shown {@code closed} with its
 *       ending only once the boundary is at its end and the writer closed it;
 *   <li>a later file (only while readers see durable bytes only and the disk lags, or for the
 *       instant between a new file's creation and its first event) has nothing readable: size 4, no
 *       transactions, its end set equal to its start set.
 * </ul>
 *
 * The in-memory catalog and the {@code .meta} files keep the writer's and the last checkpoint's
 * view; this class is where they meet the readable boundary. Thread-safe; one {@link
 * ReadableState#snapshot()} per call, so each answer is one consistent picture.
 */
final class ReadableFiles {
  private static final Logger LOG = LoggerFactory.getLogger(ReadableFiles.class);

  private final StoreDirectory dir;
  private final BinlogFlavor flavor;
  private final int maxEventSize;
  private final FileCatalog catalog;
  private final StoreWatch readable;
  private final ReadableState state;

  ReadableFiles(
      StoreDirectory dir,
      BinlogFlavor flavor,
      int maxEventSize,
      FileCatalog catalog,
      StoreWatch readable,
      ReadableState state) {
    this.dir = dir;
    this.flavor = flavor;
    this.maxEventSize = maxEventSize;
    this.catalog = catalog;
    this.readable = readable;
    this.state = state;
  }

  List<FileMetadata> list() {
    ReadableState.Snapshot s = state.snapshot();
    List<FileMetadata> files = catalog.list();
    List<FileMetadata> shown = new ArrayList<>(files.size());
    for (FileMetadata f : files) {
      shown.add(asReadable(f, s));
    }
    return shown;
  }

  Optional<FileMetadata> get(String name) {
    return catalog.get(name).map(f -> asReadable(f, state.snapshot()));
  }

  long readableLength(String name) {
    FileMetadata f =
        catalog
            .get(name)
            .orElseThrow(() -> new NoSuchElementException("the store holds no file " + name));
    Position r = readable.position();
    if (r == null) {
      return 0;
    }
    if (r.file().equals(name)) {
      return r.offset();
    }
    return new Position(name, 0).isBefore(r) ? f.size() : 0;
  }

  GtidSet executedGtids() {
    return state.gtids();
  }

  ReadableSnapshot snapshot() {
    ReadableState.Snapshot s = state.snapshot();
    return new ReadableSnapshot(s.position(), s.gtids());
  }

  GtidSet purgedGtids() {
    return catalog.first().map(FileMetadata::gtidsAtStart).orElseGet(flavor::emptyGtids);
  }

  /** See {@link BinlogStore#openFile}. */
  FileChannel open(String name) throws IOException {
    if (catalog.get(name).isEmpty()) {
      throw new NoSuchFileException(
          dir.resolve(name).toString(), null, "the store holds no such binlog file");
    }
    return FileChannel.open(dir.resolve(name), StandardOpenOption.READ);
  }

  /** See {@link BinlogStore#verify}: the readable part of the file, read back and checked. */
  FileVerification verify(String name) throws IOException {
    FileMetadata f =
        catalog
            .get(name)
            .orElseThrow(
                () -> new NoSuchFileException(dir.resolve(name).toString(), null, "not stored"));
    long limit = readableLength(name);
    try (FileChannel ch = open(name)) {
      FileScan.Result r =
          new FileScan(flavor, maxEventSize).fromStart(ch, name, limit, f.gtidsAtStart());
      if (!r.clean()) {
        LOG.warn(
            "binlog store {}: verification of {} failed at {}: {}",
            dir,
            name,
            r.problemOffset(),
            r.problem());
      }
      return new FileVerification(
          name,
          limit,
          r.validEnd(),
          r.boundary(),
          r.events(),
          r.stats().transactions(),
          r.problemOffset(),
          r.problem());
    }
  }

  /**
   * {@code f} (the catalog's entry) as readers see it at the snapshot's boundary (see the class
   * comment).
   */
  private static FileMetadata asReadable(FileMetadata f, ReadableState.Snapshot s) {
    Position r = s.position();
    if (r == null) {
      return nothingReadable(f);
    }
    int byFile = Long.compare(BinlogFileName.sequence(f.name()), r.fileSequence());
    if (byFile < 0 || f.closed() && f.size() == r.offset() && f.name().equals(r.file())) {
      return f;
    }
    if (byFile > 0) {
      return nothingReadable(f);
    }
    ReadableState.OpenFacts facts = s.facts();
    if (facts == null || !facts.file().equals(f.name())) {
      return f; // not known at this boundary (cannot happen once the writer recorded one in this
      // file)
    }
    return new FileMetadata(
        f.name(),
        f.flavor(),
        false,
        r.offset(),
        facts.transactions(),
        f.gtidsAtStart(),
        s.gtids(),
        facts.firstGtid(),
        facts.lastGtid(),
        f.firstEventTime(),
        facts.lastEventTime(),
        FileMetadata.Ending.NONE,
        null);
  }

  private static FileMetadata nothingReadable(FileMetadata f) {
    GtidSet start = f.gtidsAtStart();
    return new FileMetadata(
        f.name(),
        f.flavor(),
        false,
        BinlogFileName.FIRST_EVENT_OFFSET,
        0,
        start,
        start,
        null,
        null,
        f.firstEventTime(),
        0,
        FileMetadata.Ending.NONE,
        null);
  }
}
