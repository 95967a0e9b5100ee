package org.binlogrelay.archive;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import org.binlogrelay.archive.catalog.ArchiveCatalog;
import org.binlogrelay.archive.catalog.CatalogRefresher;
import org.binlogrelay.archive.fetch.ArchiveFetcher;
import org.binlogrelay.archive.objectstore.ObjectStore;
import org.binlogrelay.archive.objectstore.ObjectStoreException;
import org.binlogrelay.archive.objectstore.S3ObjectStore;
import org.binlogrelay.archive.retention.ArchiveRetention;
import org.binlogrelay.archive.upload.IngestLag;
import org.binlogrelay.archive.upload.UploadCounters;
import org.binlogrelay.archive.upload.UploadListener;
import org.binlogrelay.archive.upload.Uploader;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.Time;
import org.binlogrelay.storage.tier.ArchiveGate;
import org.binlogrelay.storage.tier.ArchiveTier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A relay's archive: the one object the server holds for {@code --archive}. It owns the object
 * store client, the {@link Uploader} of the store's closed files, the {@link ArchiveCatalog} of
 * archived files (refreshed in the background: at the start, after each of this relay's verified
 * uploads and every minute), the {@link ArchiveFetcher} that serves archived files back to readers
 * from a local cache, and, with a retention, the {@link ArchiveRetention} that deletes old archived
 * files. Opening and starting make no network call: an unreachable archive at start is not fatal,
 * the uploader and the catalog retry and say why in {@link #status} and the log. State lives under
 * {@code <store dir>/archive/} ({@code uploads/}, {@code catalog/}, {@code cache/}).
 *
 * <p>Thread-safe. Life: {@link #open}, {@link #start}, then {@link #close} once.
 */
public final class Archive implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Archive.class);

  private final ArchiveConfig config;
  private final ObjectStore objects;
  private final Uploader uploader;
  private final ArchiveCatalog catalog;
  private final CatalogRefresher refresher;
  private final ArchiveFetcher fetcher;
  private final ArchiveRetention retention;
  private final Time time;

  private Archive(ArchiveConfig config, ObjectStore objects, BinlogStore store, Time time) {
    this.config = config;
    this.objects = objects;
    this.time = time;
    String prefix = config.location().prefix();
    this.uploader = new Uploader(store, objects, config.upload(), time, config.codec());
    this.catalog = new ArchiveCatalog(objects, prefix, ArchiveCatalog.directory(store.directory()));
    this.refresher = new CatalogRefresher(catalog, CatalogRefresher.DEFAULT_PERIOD);
    this.fetcher =
        new ArchiveFetcher(
            catalog,
            objects,
            prefix,
            ArchiveFetcher.directory(store.directory()),
            config.cacheBytes(),
            config.fetchTimeout(),
            time,
            config.codec().keys());
    this.retention =
        config.retention().isZero()
            ? null
            : new ArchiveRetention(
                catalog,
                objects,
                prefix,
                config.retention(),
                ArchiveRetention.DEFAULT_PERIOD,
                time);
    uploader.addListener(
        (record, sent) -> {
          try {
            catalog.add(record, ArchivedFileRecord.metaKey(prefix, record.name()));
          } catch (IOException e) {
            LOG.warn(
                "Could not keep a local copy of {}'s archive metadata: {}",
                record.name(),
                e.getMessage());
          }
        });
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

  /**
   * Reads the local catalog and cache (disk only), then starts uploading the store's closed files,
   * refreshing the catalog in the background and, with a retention, the archive's retention.
   */
  public void start() throws IOException {
    boolean copiesGood = catalog.load();
    fetcher.load();
    uploader.start();
    refresher.start(!copiesGood);
    if (retention != null) {
      retention.start();
    }
  }

  /**
   * Lets the relay's catch-ups go before the uploads ({@link
   * org.binlogrelay.archive.upload.CatchUpDeferral}), reading the relay's lag from {@code lag}.
   */
  public void deferUploadsWhileCatchingUp(IngestLag lag) {
    uploader.deferWhileCatchingUp(lag);
  }

  /** Whether a file is archived, for retention. */
  public ArchiveGate gate() {
    return uploader.gate();
  }

  /** The archived files as readers see them. */
  public ArchiveTier tier() {
    return fetcher;
  }

  /** The catalog of archived files (what {@link #tier} lists). */
  public ArchiveCatalog catalog() {
    return catalog;
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
    List<FileMetadata> files = catalog.files();
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
        fetcher.cacheBytes(),
        fetcher.fetches(),
        fetcher.fetchedBytes(),
        fetcher.fetchFailures(),
        retention == null ? 0 : retention.deletedFiles(),
        config.codec().encoding().toString(),
        config.codec().encoding().encrypted() ? config.codec().keyId() : null,
        config.upload().maxUploadRate());
  }

  /**
   * Lists the archive now, oldest first (network): every archived file, contiguous or not. Also
   * brings the catalog up to date.
   *
   * @throws ObjectStoreException if the object store cannot be read
   * @throws UncheckedIOException if the local copy of the catalog cannot be written
   */
  public List<ArchivedFileRecord> listArchived() {
    try {
      catalog.reconcile();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return catalog.all();
  }

  /**
   * Runs the archive's retention now (network), as its thread does every few minutes.
   *
   * @return the files deleted (none without {@code --archive-retention})
   * @throws ObjectStoreException if a delete fails
   */
  public List<String> runRetention() throws IOException {
    return retention == null ? List.of() : retention.runOnce();
  }

  /** How often the catalog is refreshed from the archive. */
  public static Duration catalogPeriod() {
    return CatalogRefresher.DEFAULT_PERIOD;
  }

  /**
   * Stops the catalog's refresh, the retention and the fetches (pending ones fail), then the
   * uploader (it persists where it is), and releases the client.
   */
  @Override
  public void close() {
    refresher.close();
    if (retention != null) {
      retention.close();
    }
    fetcher.close();
    uploader.close();
    objects.close();
  }
}
