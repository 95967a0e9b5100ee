package org.binlogrelay.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.binlogrelay.archive.Archive;
import org.binlogrelay.archive.ArchivedFileRecord;
import org.binlogrelay.archive.objectstore.ObjectStoreException;
import org.binlogrelay.server.upstream.StartPosition;
import org.binlogrelay.storage.BinlogFileName;
import org.binlogrelay.storage.FileMetadata;

/**
 * The end of the relay's archive, for an empty store that bootstraps from it: the file after the
 * newest archived file (its ROTATE's next file; after a STOP or a crash, the next sequence number),
 * where the upstream starts at offset 4 so that the store continues the archive with no gap and no
 * duplicate. Lists the archive each time it is asked (network, on the upstream's thread); a failure
 * is an {@link IOException}, which the upstream retries with its back-off. Thread-safe.
 */
final class ArchiveStart implements StartPosition.ArchiveEnd {
  private final Archive archive;

  ArchiveStart(Archive archive) {
    this.archive = Objects.requireNonNull(archive, "archive");
  }

  @Override
  public Optional<String> nextFile() throws IOException {
    List<ArchivedFileRecord> archived;
    try {
      archived = archive.listArchived();
    } catch (ObjectStoreException e) {
      throw new IOException(
          "cannot list the archive " + archive.location() + " to find where it ends: " + e, e);
    } catch (UncheckedIOException e) {
      throw new IOException(
          "cannot read the archive "
              + archive.location()
              + " to find where it ends: "
              + e.getCause().getMessage(),
          e.getCause());
    }
    if (archived.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(after(archived.get(archived.size() - 1).file()));
  }

  /** The file that follows {@code last}. */
  static String after(FileMetadata last) {
    return last.ending() == FileMetadata.Ending.ROTATE && last.nextFile() != null
        ? last.nextFile()
        : BinlogFileName.next(last.name());
  }

  @Override
  public String location() {
    return archive.location().toString();
  }
}
