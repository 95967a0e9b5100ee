package org.binlogrelay.archive.fetch;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.binlogrelay.archive.ArchivedFileRecord;
import org.binlogrelay.archive.catalog.ArchiveCatalog;
import org.binlogrelay.archive.codec.ChunkCodec;
import org.binlogrelay.archive.codec.DecodedObject;
import org.binlogrelay.archive.codec.KeyRing;
import org.binlogrelay.archive.codec.ObjectEncoding;
import org.binlogrelay.archive.objectstore.ObjectStore;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.Time;
import org.binlogrelay.storage.tier.ArchiveTier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The archive as readers see it: the {@link ArchiveCatalog}'s contiguous files, fetched whole on
 * demand into a local cache directory ({@code <store dir>/archive/cache/}, files {@code <name>},
 * mode {@code rw-------}).
 *
 * <p>A fetch streams the data object through a fixed buffer into a temporary file, decodes it if
 * its record names a non-identity encoding (the chunk format: each chunk's zstd and AES-GCM seal
 * checked before its bytes are written; an encrypted object needs the key its id names in the
 * {@link KeyRing}, else the fetch fails with a message naming that key id), checks the file's size
 * and SHA-256 against the record, and only then renames it into place and completes: no byte of a
 * file is served before its SHA-256 matched. Concurrent fetches of one file share one download; a
 * failed download is forgotten, so the next call starts a new one. A fetch that takes longer than
 * the timeout fails and its download stops.
 *
 * <p>The cache holds at most {@code cacheBytes}: before a download, room is made by deleting the
 * least recently used copies that are not pinned; a file that does not fit then fails with a "cache
 * full" error. Copies left by an earlier run (renamed only once verified) are kept; temporary files
 * are deleted.
 *
 * <p>Thread-safe. Downloads run on a small executor of their own (daemon threads {@code
 * archive-fetch-N}); futures complete there.
 */
public final class ArchiveFetcher implements ArchiveTier, AutoCloseable {
  /** The number of parallel downloads. */
  public static final int THREADS = 2;

  private static final Logger LOG = LoggerFactory.getLogger(ArchiveFetcher.class);
  private static final int BUFFER = 256 << 10;
  private static final String TEMP_SUFFIX = ".tmp";
  private static final Set<PosixFilePermission> OWNER_ONLY =
      PosixFilePermissions.fromString("rw-------");

  private final ArchiveCatalog catalog;
  private final ObjectStore objects;
  private final String prefix;
  private final Path dir;
  private final long capacity;
  private final Duration timeout;
  private final Time time;
  private final ChunkCodec codec;
  private final ExecutorService executor;

  /** Complete copies and their sizes, least recently used first; guarded by this. */
  private final LinkedHashMap<String, Long> copies = new LinkedHashMap<>(16, 0.75f, true);

  private final Map<String, Integer> pins = new HashMap<>();
  private final Map<String, CompletableFuture<Path>> downloads = new HashMap<>();
  private long copiedBytes;
  private long reservedBytes;
  private boolean closed;

  private final AtomicLong tempIds = new AtomicLong();
  private final AtomicLong fetches = new AtomicLong();
  private final AtomicLong fetchedBytes = new AtomicLong();
  private final AtomicLong fetchFailures = new AtomicLong();

  /**
   * @param prefix the archive's key prefix (empty or ending with {@code /})
   * @param dir the cache directory (created if missing)
   * @param cacheBytes the most bytes the cache holds
   * @param timeout how long one fetch may take
   */
  public ArchiveFetcher(
      ArchiveCatalog catalog,
      ObjectStore objects,
      String prefix,
      Path dir,
      long cacheBytes,
      Duration timeout,
      Time time) {
    this(catalog, objects, prefix, dir, cacheBytes, timeout, time, KeyRing.none());
  }

  /**
   * The same, decrypting archived objects with {@code keys} (the encryption key and the older keys
   * of {@code --archive-decryption-keys}, found by the key id each object carries).
   */
  public ArchiveFetcher(
      ArchiveCatalog catalog,
      ObjectStore objects,
      String prefix,
      Path dir,
      long cacheBytes,
      Duration timeout,
      Time time,
      KeyRing keys) {
    this.codec = ChunkCodec.forReading(keys);
    this.catalog = catalog;
    this.objects = objects;
    this.prefix = prefix;
    this.dir = dir;
    this.capacity = cacheBytes;
    this.timeout = timeout;
    this.time = time;
    AtomicInteger threads = new AtomicInteger();
    this.executor =
        Executors.newFixedThreadPool(
            THREADS,
            r -> {
              Thread t = new Thread(r, "archive-fetch-" + threads.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
  }

  /** {@code <store dir>/archive/cache}. */
  public static Path directory(Path dataDir) {
    return dataDir.resolve("archive").resolve("cache");
  }

  @Override
  public List<FileMetadata> files() {
    return catalog.files();
  }

  @Override
  public boolean archived(String name) {
    return catalog.record(name).isPresent();
  }

  @Override
  public synchronized Optional<Path> cached(String name) {
    if (copies.get(name) == null) {
      return Optional.empty();
    }
    Path p = dir.resolve(name);
    if (!Files.exists(p)) {
      copiedBytes -= copies.remove(name);
      return Optional.empty();
    }
    return Optional.of(p);
  }

  @Override
  public CompletableFuture<Path> fetch(String name) {
    ArchivedFileRecord record =
        catalog
            .record(name)
            .orElseThrow(() -> new NoSuchElementException(name + " is not archived"));
    CompletableFuture<Path> download;
    synchronized (this) {
      if (closed) {
        return CompletableFuture.failedFuture(
            new IOException("the archive is closed: " + name + " cannot be fetched"));
      }
      Optional<Path> copy = cached(name);
      if (copy.isPresent()) {
        return CompletableFuture.completedFuture(copy.get());
      }
      download = downloads.get(name);
      if (download == null) {
        download = start(record);
      }
    }
    return download.copy();
  }

  /** Starts downloading {@code record}'s file; this held. */
  private CompletableFuture<Path> start(ArchivedFileRecord record) {
    String name = record.name();
    long size = record.file().size();
    CompletableFuture<Path> download = new CompletableFuture<>();
    if (!makeRoom(size)) {
      fetchFailures.incrementAndGet();
      return CompletableFuture.failedFuture(
          new IOException(
              "the archive cache is full: "
                  + name
                  + " ("
                  + size
                  + " bytes) does not fit in --archive-cache-bytes="
                  + capacity
                  + " (in use: "
                  + (copiedBytes + reservedBytes)
                  + " bytes, pinned or being fetched)"));
    }
    reservedBytes += size;
    downloads.put(name, download);
    CompletableFuture.delayedExecutor(timeout.toMillis(), TimeUnit.MILLISECONDS)
        .execute(
            () ->
                fail(
                    record,
                    download,
                    new TimeoutException(
                        "fetching "
                            + name
                            + " from the archive took longer than "
                            + timeout
                            + " (--archive-fetch-timeout)")));
    try {
      executor.execute(() -> run(record, download));
    } catch (RejectedExecutionException e) {
      fail(record, download, new IOException("the archive is closed", e));
    }
    return download;
  }

  private void run(ArchivedFileRecord record, CompletableFuture<Path> download) {
    if (download.isDone()) {
      return;
    }
    String name = record.name();
    Path temp = dir.resolve(name + "." + tempIds.incrementAndGet() + TEMP_SUFFIX);
    try {
      long deadline = time.nanoseconds() + timeout.toNanos();
      Files.createDirectories(dir);
      Files.deleteIfExists(temp);
      FileAttribute<Set<PosixFilePermission>> mode =
          PosixFilePermissions.asFileAttribute(OWNER_ONLY);
      DecodedObject decoded;
      try (FileChannel out =
              posix()
                  ? FileChannel.open(
                      temp, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE), mode)
                  : FileChannel.open(
                      temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
          InputStream in =
              new Watched(
                  objects.get(ArchivedFileRecord.dataKey(prefix, name), 0, -1),
                  download,
                  deadline,
                  name)) {
        decoded = codec.decode(in, name, ObjectEncoding.ofName(record.encoding()), out);
        decoded.check(name, record.file().size(), record.sha256());
        out.force(false);
      }
      Path target = dir.resolve(name);
      try {
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
      }
      synchronized (this) {
        if (downloads.remove(name, download)) {
          reservedBytes -= record.file().size();
        }
        copies.put(name, record.file().size());
        copiedBytes += record.file().size();
        makeRoom(0);
      }
      fetches.incrementAndGet();
      fetchedBytes.addAndGet(record.file().size());
      LOG.info("Fetched {} ({} bytes) from the archive into the cache", name, record.file().size());
      if (!download.complete(target)) {
        // timed out meanwhile: the copy is good, keep it for the next call
        LOG.debug("{} was fetched after its fetch had timed out", name);
      }
    } catch (Throwable e) {
      deleteQuietly(temp);
      fail(
          record,
          download,
          new IOException("fetching " + name + " from the archive failed: " + e.getMessage(), e));
    }
  }

  /** Releases what a failed download held, counts and logs the failure, then fails it. */
  private void fail(
      ArchivedFileRecord record, CompletableFuture<Path> download, Throwable failure) {
    synchronized (this) {
      if (download.isDone()) {
        return;
      }
      if (downloads.remove(record.name(), download)) {
        reservedBytes -= record.file().size();
      }
    }
    fetchFailures.incrementAndGet();
    LOG.warn("{}", failure.getMessage());
    download.completeExceptionally(failure);
  }

  @Override
  public synchronized void pin(String name) {
    pins.merge(name, 1, Integer::sum);
  }

  @Override
  public synchronized void unpin(String name) {
    Integer n = pins.get(name);
    if (n == null) {
      return;
    }
    if (n <= 1) {
      pins.remove(name);
      makeRoom(0);
    } else {
      pins.put(name, n - 1);
    }
  }

  /** Bytes of complete copies in the cache. */
  public synchronized long cacheBytes() {
    return copiedBytes;
  }

  /** Files fetched into the cache since the start. */
  public long fetches() {
    return fetches.get();
  }

  /** Their bytes. */
  public long fetchedBytes() {
    return fetchedBytes.get();
  }

  /** Fetches that failed since the start. */
  public long fetchFailures() {
    return fetchFailures.get();
  }

  /** Stops the downloads (waits up to 2 s for them); pending fetches fail. */
  @Override
  public void close() {
    List<CompletableFuture<Path>> pending;
    synchronized (this) {
      closed = true;
      pending = new ArrayList<>(downloads.values());
    }
    executor.shutdownNow();
    for (CompletableFuture<Path> f : pending) {
      f.completeExceptionally(new IOException("the archive is closed"));
    }
    try {
      // a download stuck in a read ends at the client's read timeout and then deletes its
      // temporary file; the threads are daemons, so the relay's stop does not wait for it
      executor.awaitTermination(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Evicts least recently used unpinned copies until {@code bytes} more fit; this held.
   *
   * @return whether they fit
   */
  private boolean makeRoom(long bytes) {
    Iterator<Map.Entry<String, Long>> lru = copies.entrySet().iterator();
    while (copiedBytes + reservedBytes + bytes > capacity && lru.hasNext()) {
      Map.Entry<String, Long> e = lru.next();
      if (pins.containsKey(e.getKey())) {
        continue;
      }
      deleteQuietly(dir.resolve(e.getKey()));
      copiedBytes -= e.getValue();
      lru.remove();
      LOG.debug("Evicted {} ({} bytes) from the archive cache", e.getKey(), e.getValue());
    }
    return copiedBytes + reservedBytes + bytes <= capacity;
  }

  /**
   * Creates the cache directory and takes the copies an earlier run left (they were renamed into
   * place only once verified), least recently modified first; deletes temporary files. Local disk
   * only.
   */
  public void load() throws IOException {
    Files.createDirectories(dir);
    List<Path> found = new ArrayList<>();
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
      for (Path p : files) {
        if (p.getFileName().toString().endsWith(TEMP_SUFFIX)) {
          deleteQuietly(p);
        } else if (Files.isRegularFile(p)) {
          found.add(p);
        }
      }
    }
    found.sort(Comparator.comparing(ArchiveFetcher::modified));
    synchronized (this) {
      for (Path p : found) {
        long size = Files.size(p);
        copies.put(p.getFileName().toString(), size);
        copiedBytes += size;
      }
      makeRoom(0);
    }
  }

  private static long modified(Path p) {
    try {
      return Files.getLastModifiedTime(p).toMillis();
    } catch (IOException e) {
      return 0;
    }
  }

  private static boolean posix() {
    return FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
  }

  private static void deleteQuietly(Path p) {
    try {
      Files.deleteIfExists(p);
    } catch (IOException e) {
      LOG.warn("Could not delete {}: {}", p, e.getMessage());
    }
  }

  @Override
  public String toString() {
    return "ArchiveFetcher(" + dir + ")";
  }

  /**
   * The object's bytes, stopped when the fetch is over (timed out, closed) or past the deadline.
   */
  private final class Watched extends FilterInputStream {
    private final CompletableFuture<Path> download;
    private final long deadline;
    private final String name;

    Watched(InputStream in, CompletableFuture<Path> download, long deadline, String name) {
      super(in);
      this.download = download;
      this.deadline = deadline;
      this.name = name;
    }

    private void check() throws IOException {
      if (download.isDone()) {
        throw new InterruptedIOException("the fetch of " + name + " is over (timed out or closed)");
      }
      if (time.nanoseconds() - deadline > 0) {
        throw new InterruptedIOException("fetching " + name + " took longer than " + timeout);
      }
    }

    @Override
    public int read() throws IOException {
      check();
      return super.read();
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      check();
      return super.read(b, off, Math.min(len, BUFFER));
    }
  }
}
