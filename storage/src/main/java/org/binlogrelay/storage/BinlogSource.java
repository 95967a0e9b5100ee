package org.binlogrelay.storage;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.GtidSet;

/**
 * The binlog as readers and lookups see it: an ordered list of files, a readable boundary that only
 * moves forward, and a way to open a file for reading. {@link BinlogStore} is the local source;
 * {@link org.binlogrelay.storage.tier.TieredBinlog} puts the archived files before the store's so
 * that a reader crosses from one tier to the other as from one local file to the next.
 *
 * <p>Exactly what {@code read/} and {@code lookup/} use, nothing of writing, recovery or retention.
 * Every method has the meaning {@link BinlogStore}'s method of the same name documents.
 *
 * <p>Implementations are thread-safe.
 */
public interface BinlogSource {
  GtidFlavor flavor();

  /** The largest event a reader accepts ({@link StoreConfig#maxEventSize()}). */
  int maxEventSize();

  /** The clock readers wait with ({@link StoreConfig#time()}). */
  Time time();

  /** The files, oldest first (see {@link BinlogStore#files()}). */
  List<FileMetadata> files();

  /** The metadata of {@code name}, or empty if the source does not hold it. */
  Optional<FileMetadata> file(String name);

  /**
   * The file after {@code name} in serving order, if there is one yet.
   *
   * @throws java.util.NoSuchElementException if the source does not hold {@code name}
   */
  Optional<String> nextFile(String name);

  /**
   * How many bytes of {@code name} readers may read (see {@link BinlogStore#readableLength}).
   *
   * @throws java.util.NoSuchElementException if the source does not hold {@code name}
   */
  long readableLength(String name);

  /** The readable boundary; {@code null} while nothing is readable. */
  Position readableEnd();

  /** The readable boundary to wait on. */
  StoreWatch readable();

  /** The GTID set before the readable boundary (a copy). */
  GtidSet executedGtids();

  /** The GTID set before the oldest file (a copy): what a replica can no longer get here. */
  GtidSet purgedGtids();

  /** Event boundaries found by earlier position checks. */
  EventBoundaries boundaries();

  /** The I/O error that stopped the local store, if it is stopped. */
  Optional<Throwable> failure();

  /**
   * Opens {@code name} for reading; the caller owns the result and closes it. Read only up to
   * {@link #readableLength}.
   *
   * @throws java.nio.file.NoSuchFileException if the source does not hold the file (any more)
   * @throws org.binlogrelay.storage.tier.ArchiveFetchPending if the file is archived and its local
   *     copy is still being fetched: not a failure, open it again once the pending fetch completes
   */
  OpenedFile open(String name) throws IOException;
}
