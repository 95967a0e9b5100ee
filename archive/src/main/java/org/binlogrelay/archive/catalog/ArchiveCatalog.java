package org.binlogrelay.archive.catalog;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.binlogrelay.archive.ArchivedFileRecord;
import org.binlogrelay.archive.objectstore.ObjectStore;
import org.binlogrelay.archive.upload.KeyValueText.DamagedException;
import org.binlogrelay.storage.BinlogFileName;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.tier.TieredBinlog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The archive's list of archived and verified files: one {@link ArchivedFileRecord} per metadata
 * object {@code <prefix>meta/<name>.meta}, ordered by the file's sequence number. The {@link #view}
 * is the run of contiguous files from the oldest: each file continues the previous one (its
 * ROTATE's next file, or the next sequence number, and GTIDs that carry on); the view stops before
 * the first gap, which is logged once.
 *
 * <p>A copy of each metadata object is kept under {@code <dir>} ({@code <name>.meta}), so that a
 * restart knows the archive without reading every object again: {@link #refresh} lists only the
 * keys after the last one known ({@link ObjectStore#list} with {@code startAfter}) and reads only
 * new ones. {@link #reconcile} lists every key, reads those it does not know (a key that sorts
 * before the last one, e.g. after a sequence number grew a digit) and forgets those gone (deleted
 * by another relay's retention). A refresh that fails keeps what was known.
 *
 * <p>Thread-safe: refreshes are serialized; {@link #view} and {@link #record} read an immutable
 * snapshot without waiting.
 */
public final class ArchiveCatalog {
  private static final Logger LOG = LoggerFactory.getLogger(ArchiveCatalog.class);

  private final ObjectStore objects;
  private final String prefix;
  private final Path dir;
  private final Object refreshLock = new Object();

  /** Every known record by sequence number; guarded by refreshLock. */
  private final TreeMap<Long, ArchivedFileRecord> known = new TreeMap<>();

  /** The greatest metadata key known; guarded by refreshLock. */
  private String lastKey;

  private volatile Snapshot snapshot = new Snapshot(List.of(), Map.of(), Map.of());
  private volatile boolean loaded;
  private String lastGapReported;

  /** An immutable view: the contiguous records, the same by name, and all records by name. */
  private record Snapshot(
      List<ArchivedFileRecord> contiguous,
      Map<String, ArchivedFileRecord> viewed,
      Map<String, ArchivedFileRecord> all) {}

  /**
   * @param prefix the archive's key prefix (empty or ending with {@code /})
   * @param dir where the local copies of the metadata objects are kept (created if missing)
   */
  public ArchiveCatalog(ObjectStore objects, String prefix, Path dir) {
    this.objects = objects;
    this.prefix = prefix;
    this.dir = dir;
  }

  /** {@code <store dir>/archive/catalog}. */
  public static Path directory(Path dataDir) {
    return dataDir.resolve("archive").resolve("catalog");
  }

  /**
   * Reads the local copies (no network). A damaged copy is deleted and read again from the archive
   * by the next {@link #reconcile}.
   *
   * @return whether every local copy was good (false: a reconcile is needed)
   */
  public boolean load() throws IOException {
    Files.createDirectories(dir);
    boolean allGood = true;
    synchronized (refreshLock) {
      try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.meta")) {
        for (Path p : files) {
          String fileName = p.getFileName().toString();
          String name = fileName.substring(0, fileName.length() - ".meta".length());
          try {
            ArchivedFileRecord r =
                ArchivedFileRecord.decode(Files.readAllBytes(p), p.toString(), name);
            add(r);
            String key = ArchivedFileRecord.metaKey(prefix, name);
            if (lastKey == null || key.compareTo(lastKey) > 0) {
              lastKey = key;
            }
          } catch (DamagedException | IllegalArgumentException e) {
            LOG.warn(
                "Deleting the damaged local copy {} of an archive metadata object: {}",
                p,
                e.getMessage());
            Files.deleteIfExists(p);
            allGood = false;
          }
        }
      }
      publish();
      loaded = true;
    }
    return allGood;
  }

  /**
   * Lists the metadata keys after the last known one and reads the new ones (network).
   *
   * @return the number of new files
   * @throws org.binlogrelay.archive.objectstore.ObjectStoreException if the archive cannot be read
   */
  public int refresh() throws IOException {
    synchronized (refreshLock) {
      ensureLoaded();
      int added = 0;
      String after = lastKey;
      while (true) {
        ObjectStore.ListPage page = objects.list(metaPrefix(), after);
        for (ObjectStore.ObjectInfo info : page.objects()) {
          after = info.key();
          if (readIfNew(info.key())) {
            added++;
          }
        }
        if (!page.truncated() || page.objects().isEmpty()) {
          break;
        }
      }
      publish();
      return added;
    }
  }

  /**
   * Lists every metadata key, reads those not known and forgets known files whose key is gone
   * (network).
   *
   * @return whether anything changed
   */
  public boolean reconcile() throws IOException {
    synchronized (refreshLock) {
      ensureLoaded();
      boolean changed = false;
      Set<String> seen = new HashSet<>();
      String after = null;
      while (true) {
        ObjectStore.ListPage page = objects.list(metaPrefix(), after);
        for (ObjectStore.ObjectInfo info : page.objects()) {
          after = info.key();
          nameOf(info.key()).ifPresent(seen::add);
          changed |= readIfNew(info.key());
        }
        if (!page.truncated() || page.objects().isEmpty()) {
          break;
        }
      }
      for (ArchivedFileRecord r : new ArrayList<>(known.values())) {
        if (!seen.contains(r.name())) {
          LOG.info(
              "{} is no longer in the archive (deleted by another relay's retention?)", r.name());
          forgetLocked(r.name());
          changed = true;
        }
      }
      publish();
      return changed;
    }
  }

  /**
   * Adds a record this relay has just verified (no network): what the uploader tells its listeners.
   */
  public void add(ArchivedFileRecord record, String metaKey) throws IOException {
    synchronized (refreshLock) {
      ensureLoaded();
      if (!record.equals(known.get(BinlogFileName.sequence(record.name())))) {
        writeCopy(record);
        add(record);
      }
      if (lastKey == null || metaKey.compareTo(lastKey) > 0) {
        lastKey = metaKey;
      }
      publish();
    }
  }

  /** Forgets a file deleted from the archive (by this relay's retention): view and local copy. */
  public void forget(String name) throws IOException {
    synchronized (refreshLock) {
      forgetLocked(name);
      publish();
    }
  }

  /** The contiguous archived files, oldest first. */
  public List<ArchivedFileRecord> view() {
    return snapshot.contiguous();
  }

  /** The view as the store's metadata, oldest first. */
  public List<FileMetadata> files() {
    return snapshot.contiguous().stream().map(ArchivedFileRecord::file).toList();
  }

  /** Every known archived file, contiguous or not, oldest first. */
  public List<ArchivedFileRecord> all() {
    List<ArchivedFileRecord> all = new ArrayList<>(snapshot.all().values());
    all.sort(Comparator.comparingLong(r -> BinlogFileName.sequence(r.name())));
    return all;
  }

  /** The record of {@code name} if it is in the view. */
  public Optional<ArchivedFileRecord> record(String name) {
    return Optional.ofNullable(snapshot.viewed().get(name));
  }

  private void ensureLoaded() throws IOException {
    if (!loaded) {
      load();
    }
  }

  private String metaPrefix() {
    return prefix + ArchivedFileRecord.META_DIRECTORY;
  }

  private Optional<String> nameOf(String key) {
    if (!key.startsWith(metaPrefix()) || !key.endsWith(ArchivedFileRecord.META_SUFFIX)) {
      return Optional.empty();
    }
    String name =
        key.substring(
            metaPrefix().length(), key.length() - ArchivedFileRecord.META_SUFFIX.length());
    return BinlogFileName.isValid(name) ? Optional.of(name) : Optional.empty();
  }

  /** Reads and keeps {@code key}'s record unless it is known; refreshLock held. */
  private boolean readIfNew(String key) throws IOException {
    if (lastKey == null || key.compareTo(lastKey) > 0) {
      lastKey = key;
    }
    Optional<String> name = nameOf(key);
    if (name.isEmpty() || containsName(name.get())) {
      return false;
    }
    byte[] content;
    try (InputStream in = objects.get(key, 0, -1)) {
      content = in.readAllBytes();
    }
    ArchivedFileRecord record;
    try {
      record = ArchivedFileRecord.decode(content, key, name.get());
    } catch (DamagedException e) {
      LOG.warn("Ignoring the damaged archive metadata object {}: {}", key, e.getMessage());
      return false;
    }
    writeCopy(record);
    add(record);
    return true;
  }

  private boolean containsName(String name) {
    ArchivedFileRecord r = known.get(BinlogFileName.sequence(name));
    return r != null && r.name().equals(name);
  }

  private void add(ArchivedFileRecord record) {
    known.put(BinlogFileName.sequence(record.name()), record);
  }

  private void forgetLocked(String name) throws IOException {
    ArchivedFileRecord r = known.get(BinlogFileName.sequence(name));
    if (r != null && r.name().equals(name)) {
      known.remove(BinlogFileName.sequence(name));
    }
    Files.deleteIfExists(dir.resolve(name + ArchivedFileRecord.META_SUFFIX));
  }

  private void writeCopy(ArchivedFileRecord record) throws IOException {
    Files.createDirectories(dir);
    Path target = dir.resolve(record.name() + ArchivedFileRecord.META_SUFFIX);
    Path temp = dir.resolve(record.name() + ArchivedFileRecord.META_SUFFIX + ".tmp");
    Files.write(temp, record.encode());
    try {
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  /** Rebuilds the snapshot from {@code known}; refreshLock held. */
  private void publish() {
    List<ArchivedFileRecord> contiguous = new ArrayList<>();
    Map<String, ArchivedFileRecord> all = new HashMap<>();
    ArchivedFileRecord previous = null;
    boolean gap = false;
    for (ArchivedFileRecord r : known.values()) {
      all.put(r.name(), r);
      if (gap) {
        continue;
      }
      if (previous != null && !TieredBinlog.joins(previous.file(), r.file())) {
        reportGap(previous.file(), r.file());
        gap = true;
        continue;
      }
      contiguous.add(r);
      previous = r;
    }
    if (!gap) {
      lastGapReported = null;
    }
    Map<String, ArchivedFileRecord> viewed = new HashMap<>();
    contiguous.forEach(r -> viewed.put(r.name(), r));
    snapshot = new Snapshot(List.copyOf(contiguous), Map.copyOf(viewed), Map.copyOf(all));
  }

  private void reportGap(FileMetadata previous, FileMetadata next) {
    String gap = previous.name() + " -> " + next.name();
    if (gap.equals(lastGapReported)) {
      return;
    }
    lastGapReported = gap;
    LOG.warn(
        "The archive's {} (ending {}{}, GTIDs at its end {}) is not followed by {} (GTIDs at its"
            + " start {}): the archived files from {} on are not served until the gap is filled",
        previous.name(),
        previous.ending(),
        previous.nextFile() == null ? "" : " to " + previous.nextFile(),
        previous.gtidsAtEnd(),
        next.name(),
        next.gtidsAtStart(),
        next.name());
  }

  @Override
  public String toString() {
    return "ArchiveCatalog(" + prefix + ", " + snapshot.contiguous().size() + " files)";
  }
}
