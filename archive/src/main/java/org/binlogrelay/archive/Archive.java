package org.binlogrelay.archive;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.binlogrelay.archive.objectstore.ObjectStore;
import org.binlogrelay.archive.objectstore.ObjectStoreException;
import org.binlogrelay.archive.objectstore.S3ObjectStore;
import org.binlogrelay.archive.upload.KeyValueText.DamagedException;
import org.binlogrelay.archive.upload.UploadCounters;
import org.binlogrelay.archive.upload.UploadListener;
import org.binlogrelay.archive.upload.Uploader;
import org.binlogrelay.storage.BinlogFileName;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.Time;
import org.binlogrelay.storage.tier.ArchiveGate;
import org.binlogrelay.storage.tier.ArchiveTier;

/**
 * A relay's archive: the one object the server holds for {@code --archive}. It owns the object
 * store client, the {@link Uploader} of the store's closed files, and the {@link ArchiveTier} that
 * serves archived files back to readers. Opening makes no network call: an unreachable archive at
 * start is not fatal, the uploader retries and says why in {@link #status}.
 *
 * <p>Thread-safe. Life: {@link #open}, {@link #start}, then {@link #close} once.
 */
public final class Archive implements AutoCloseable {
  private final ArchiveConfig config;
  private final ObjectStore objects;
  private final Uploader uploader;
  private final ArchiveTier tier;
  private final Time time;

  private Archive(ArchiveConfig config, ObjectStore objects, BinlogStore store, Time time) {
    this.config = config;
    this.objects = objects;
    this.uploader = new Uploader(store, objects, config.upload(), time);
    this.tier = new NoFilesYet();
    this.time = time;
  }

  /** The archive of {@code store} in the S3-compatible store {@code config} names. */
  public static Archive open(ArchiveConfig config, BinlogStore store, Time time) {
    return new Archive(config, new S3ObjectStore(config.s3()), store, time);
  }

  /** The same over any {@link ObjectStore} (tests). */
  public static Archive open(
      ObjectStore objects, ArchiveConfig config, BinlogStore store, Time time) {
    return new Archive(config, objects, store, time);
  }

  /** Starts uploading the store's closed files. */
  public void start() throws IOException {
    uploader.start();
  }

  /** Whether a file is archived, for retention. */
  public ArchiveGate gate() {
    return uploader.gate();
  }

  /** The archived files as readers see them. */
  public ArchiveTier tier() {
    return tier;
  }

  /** Where the archive is. */
  public ArchiveLocation location() {
    return config.location();
  }

  /** The options it runs with. */
  public ArchiveConfig config() {
    return config;
  }

  /** The uploader's counters, for the metrics. */
  public UploadCounters counters() {
    return uploader.counters();
  }

  /** Tells {@code listener} of each upload's steps (e.g. to run retention after a verified one). */
  public void addListener(UploadListener listener) {
    uploader.addListener(listener);
  }

  /** What the archive is doing now. */
  public ArchiveStatus status() {
    UploadCounters c = uploader.counters();
    List<FileMetadata> files = tier.files();
    long archivedBytes = files.stream().mapToLong(FileMetadata::size).sum();
    return new ArchiveStatus(
        config.location().toString(),
        uploader.status(),
        c.pendingFiles(),
        c.pendingBytes(),
        c.oldestPendingAgeSeconds(time.milliseconds()),
        c.uploadedFiles(),
        c.uploadedBytes(),
        files.size(),
        archivedBytes,
        files.isEmpty() ? null : files.get(0).name(),
        files.isEmpty() ? null : files.get(files.size() - 1).name(),
        0,
        0,
        0,
        0,
        0);
  }

  /**
   * Lists the archive now, oldest first (network).
   *
   * @throws ObjectStoreException if the object store cannot be read
   * @throws UncheckedIOException wrapping a {@link DamagedException} if a metadata object is
   *     damaged
   */
  public List<ArchivedFileRecord> listArchived() {
    String metaPrefix = config.location().key(ArchivedFileRecord.META_DIRECTORY);
    List<ArchivedFileRecord> records = new ArrayList<>();
    String after = null;
    while (true) {
      ObjectStore.ListPage page = objects.list(metaPrefix, after);
      for (ObjectStore.ObjectInfo info : page.objects()) {
        after = info.key();
        if (!info.key().endsWith(ArchivedFileRecord.META_SUFFIX)) {
          continue;
        }
        try (InputStream in = objects.get(info.key(), 0, -1)) {
          records.add(ArchivedFileRecord.decode(in.readAllBytes(), info.key(), null));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        } catch (DamagedException e) {
          throw new UncheckedIOException(new IOException(e.getMessage(), e));
        }
      }
      if (!page.truncated() || page.objects().isEmpty()) {
        break;
      }
    }
    records.sort(Comparator.comparingLong(r -> BinlogFileName.sequence(r.name())));
    return records;
  }

  /** Stops the uploader (it persists where it is) and releases the client. */
  @Override
  public void close() {
    uploader.close();
    objects.close();
  }

  /** Until the catalog and the fetcher land: an archive tier that lists nothing. */
  private static final class NoFilesYet implements ArchiveTier {
    @Override
    public List<FileMetadata> files() {
      return List.of();
    }

    @Override
    public boolean archived(String name) {
      return false;
    }

    @Override
    public Optional<Path> cached(String name) {
      return Optional.empty();
    }

    @Override
    public CompletableFuture<Path> fetch(String name) {
      throw new NoSuchElementException(name + " is not archived");
    }

    @Override
    public void pin(String name) {}

    @Override
    public void unpin(String name) {}
  }
}
