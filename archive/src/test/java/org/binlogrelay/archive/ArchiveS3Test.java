package org.binlogrelay.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.binlogrelay.archive.catalog.ArchiveCatalog;
import org.binlogrelay.archive.fetch.ArchiveFetcher;
import org.binlogrelay.archive.objectstore.ObjectStore;
import org.binlogrelay.archive.objectstore.S3ObjectStore;
import org.binlogrelay.archive.objectstore.S3Settings;
import org.binlogrelay.archive.retention.ArchiveRetention;
import org.binlogrelay.archive.testing.S3FaultProxy;
import org.binlogrelay.archive.testing.S3FaultProxy.Fault;
import org.binlogrelay.archive.testing.S3FaultProxy.Rule;
import org.binlogrelay.archive.testing.S3ProxyProcess;
import org.binlogrelay.archive.upload.ClosedBinlogs;
import org.binlogrelay.archive.upload.UploadConfig;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.Time;
import org.binlogrelay.storage.read.BinlogReader;
import org.binlogrelay.storage.read.EventBatch;
import org.binlogrelay.storage.read.ReadResult;
import org.binlogrelay.storage.read.ReaderOptions;
import org.binlogrelay.storage.retention.ArchiveRules;
import org.binlogrelay.storage.retention.Retention;
import org.binlogrelay.storage.retention.RetentionPolicy;
import org.binlogrelay.storage.testing.ManualTime;
import org.binlogrelay.storage.tier.ArchiveFetchPending;
import org.binlogrelay.storage.tier.ArchiveTier;
import org.binlogrelay.storage.tier.TieredBinlog;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The archive made readable, against a real S3-compatible server (s3proxy 2.6.0 in a child JVM,
 * through the fault proxy): the catalog (listing, local copies, refresh, a gap), fetches (verified,
 * shared, refused when damaged, failing while the server is down), the cache's cap, the archive's
 * retention, and a reader crossing from archived files into local ones. The store is the MySQL 9.7
 * fixture's three closed files ({@link ClosedBinlogs}). Each test uses its own prefix; one s3proxy
 * for the class.
 */
class ArchiveS3Test {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final List<String> NAMES = ClosedBinlogs.NAMES;
  private static S3ProxyProcess s3;
  private static S3FaultProxy proxy;
  private static int prefixes;

  @TempDir Path tmp;
  private final List<AutoCloseable> open = new ArrayList<>();
  private String prefix;

  @BeforeAll
  static void startServer() throws IOException {
    s3 = S3ProxyProcess.start();
    proxy = new S3FaultProxy(s3.endpoint());
  }

  @AfterAll
  static void stopServer() throws IOException {
    if (proxy != null) {
      proxy.close();
    }
    if (s3 != null) {
      s3.close();
    }
  }

  @AfterEach
  void tearDown() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
    proxy.clearRules();
    proxy.clearExchanges();
  }

  private static ObjectStore objects() {
    return new S3ObjectStore(
        S3Settings.forBucket(S3ProxyProcess.BUCKET)
            .withPathStyle(true)
            .withRegion("us-east-1")
            .withStaticCredentials(S3ProxyProcess.IDENTITY, S3ProxyProcess.CREDENTIAL)
            .withTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(30))
            .withEndpoint(proxy.endpoint()));
  }

  private ArchiveConfig config(String by, long cacheBytes, Duration retention) {
    return config(by, cacheBytes, retention, Duration.ofSeconds(30));
  }

  private ArchiveConfig config(
      String by, long cacheBytes, Duration retention, Duration fetchTimeout) {
    if (prefix == null) {
      prefixes++;
      prefix = "a" + prefixes + "/";
    }
    UploadConfig upload =
        UploadConfig.defaults(prefix, by)
            .withBackoff(Duration.ofMillis(1), Duration.ofMillis(50), Duration.ofMillis(100));
    return new ArchiveConfig(
        new ArchiveLocation(S3ProxyProcess.BUCKET, prefix),
        S3Settings.forBucket(S3ProxyProcess.BUCKET),
        upload,
        cacheBytes,
        fetchTimeout,
        retention,
        2);
  }

  private <T extends AutoCloseable> T keep(T c) {
    open.add(c);
    return c;
  }

  private BinlogStore filled(String name) throws Exception {
    return keep(ClosedBinlogs.filled(tmp.resolve(name)));
  }

  /** An archive of {@code store}, started, once its three files are archived and listed. */
  private Archive archived(BinlogStore store, long cacheBytes) throws Exception {
    return archived(store, config("1@relay-a", cacheBytes, Duration.ZERO));
  }

  private Archive archived(BinlogStore store, ArchiveConfig config) throws Exception {
    Archive a = keep(Archive.open(objects(), config, store, Time.SYSTEM));
    a.start();
    eventually(WAIT, "three files archived", () -> a.tier().files().size() == NAMES.size());
    return a;
  }

  private static Path get(CompletableFuture<Path> f) throws Exception {
    return f.get(1, TimeUnit.MINUTES);
  }

  private static long gets(String key) {
    return proxy.exchanges().stream()
        .filter(e -> e.method().equals("GET") && e.path().endsWith("/" + key))
        .count();
  }

  @Test
  void theCatalogListsTheArchiveKeepsLocalCopiesAndSeesAnotherRelaysFiles() throws Exception {
    BinlogStore store = filled("a");
    Archive a = archived(store, ArchiveConfig.DEFAULT_CACHE_BYTES);
    List<FileMetadata> closed = ClosedBinlogs.closed(store);
    assertThat(a.tier().files()).isEqualTo(closed);
    assertThat(a.listArchived()).extracting(ArchivedFileRecord::name).isEqualTo(NAMES);
    ArchiveStatus status = a.status();
    assertThat(status.archivedFiles()).isEqualTo(3);
    assertThat(status.archivedBytes())
        .isEqualTo(closed.stream().mapToLong(FileMetadata::size).sum());
    assertThat(status.firstArchived()).isEqualTo(NAMES.get(0));
    assertThat(status.lastArchived()).isEqualTo(NAMES.get(2));
    Path copies = ArchiveCatalog.directory(store.directory());
    for (String n : NAMES) {
      assertThat(copies.resolve(n + ".meta")).exists();
    }

    // another relay sharing the prefix, with nothing of its own: its background refresh finds them
    BinlogStore empty = keep(ClosedBinlogs.open(tmp.resolve("b")));
    Archive b =
        keep(
            Archive.open(
                objects(),
                config("2@relay-b", ArchiveConfig.DEFAULT_CACHE_BYTES, Duration.ZERO),
                empty,
                Time.SYSTEM));
    b.start();
    eventually(WAIT, "relay b lists the archive", () -> b.tier().files().equals(closed));

    // a restart reads its local copies and lists only the keys after the last one
    b.close();
    ObjectStore objects = keep(objects());
    ArchiveCatalog restarted =
        new ArchiveCatalog(objects, prefix, ArchiveCatalog.directory(empty.directory()));
    assertThat(restarted.load()).isTrue();
    assertThat(restarted.files()).isEqualTo(closed);
    proxy.clearExchanges();
    assertThat(restarted.refresh()).isZero();
    assertThat(proxy.exchanges()).extracting(e -> e.method()).containsOnly("GET");
    assertThat(proxy.exchanges()).allMatch(e -> e.query().contains("start-after"));
    assertThat(proxy.exchanges()).noneMatch(e -> e.path().endsWith(".meta"));

    // a gap: the middle file's metadata object gone; the view stops before it
    objects.delete(ArchivedFileRecord.metaKey(prefix, NAMES.get(1)));
    assertThat(restarted.reconcile()).isTrue();
    assertThat(restarted.view()).extracting(ArchivedFileRecord::name).containsExactly(NAMES.get(0));
    assertThat(restarted.all())
        .extracting(ArchivedFileRecord::name)
        .containsExactly(NAMES.get(0), NAMES.get(2));
    assertThat(copies).isEqualTo(store.directory().resolve("archive").resolve("catalog"));
  }

  @Test
  void aFetchIsVerifiedAndHasTheFilesBytesAndIsThenCached() throws Exception {
    BinlogStore store = filled("a");
    Archive a = archived(store, ArchiveConfig.DEFAULT_CACHE_BYTES);
    ArchiveTier tier = a.tier();
    long bytes = 0;
    for (String n : NAMES) {
      assertThat(tier.archived(n)).isTrue();
      assertThat(tier.cached(n)).isEmpty();
      Path copy = get(tier.fetch(n));
      assertThat(copy).hasBinaryContent(ClosedBinlogs.local(store, n));
      assertThat(copy.getParent()).isEqualTo(ArchiveFetcher.directory(store.directory()));
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(copy)))
          .isEqualTo("rw-------");
      assertThat(tier.cached(n)).contains(copy);
      bytes += Files.size(copy);
    }
    proxy.clearExchanges();
    assertThat(get(tier.fetch(NAMES.get(0)))).isEqualTo(tier.cached(NAMES.get(0)).orElseThrow());
    assertThat(proxy.exchanges()).as("a cached file is not fetched again").isEmpty();
    ArchiveStatus s = a.status();
    assertThat(s.fetches()).isEqualTo(3);
    assertThat(s.fetchedBytes()).isEqualTo(bytes);
    assertThat(s.cacheBytes()).isEqualTo(bytes);
    assertThat(s.fetchFailures()).isZero();
    assertThatThrownBy(() -> tier.fetch("binlog.000099"))
        .isInstanceOf(java.util.NoSuchElementException.class);
  }

  @Test
  void aDamagedObjectIsRefusedAndNotCached() throws Exception {
    BinlogStore store = filled("a");
    Archive a = archived(store, ArchiveConfig.DEFAULT_CACHE_BYTES);
    String name = NAMES.get(0);
    byte[] other = ClosedBinlogs.local(store, name).clone();
    other[100] ^= 1;
    ObjectStore objects = keep(objects());
    objects.put(
        ArchivedFileRecord.dataKey(prefix, name),
        () -> new ByteArrayInputStream(other),
        other.length,
        MessageDigest.getInstance("MD5").digest(other),
        Map.of());
    assertThatThrownBy(() -> get(a.tier().fetch(name)))
        .isInstanceOf(ExecutionException.class)
        .hasMessageContaining("fetching " + name + " from the archive failed")
        .hasMessageContaining("SHA-256");
    assertThat(a.tier().cached(name)).isEmpty();
    try (Stream<Path> files = Files.list(ArchiveFetcher.directory(store.directory()))) {
      assertThat(files).isEmpty();
    }
    assertThat(a.status().fetchFailures()).isEqualTo(1);
    assertThat(a.status().cacheBytes()).isZero();
  }

  @Test
  void concurrentFetchesOfOneFileShareOneDownload() throws Exception {
    BinlogStore store = filled("a");
    Archive a = archived(store, ArchiveConfig.DEFAULT_CACHE_BYTES);
    String name = NAMES.get(2);
    proxy.clearExchanges();
    proxy.add(
        Rule.on("GET", "/.*/binlogs/" + name).times(1).fault(Fault.delay(Duration.ofSeconds(1))));
    List<CompletableFuture<Path>> fetches = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      fetches.add(a.tier().fetch(name));
    }
    for (CompletableFuture<Path> f : fetches) {
      assertThat(get(f)).hasBinaryContent(ClosedBinlogs.local(store, name));
    }
    assertThat(gets(name)).isEqualTo(1);
    assertThat(a.status().fetches()).isEqualTo(1);
  }

  @Test
  void theCacheEvictsTheLeastRecentlyUsedUnpinnedFile() throws Exception {
    BinlogStore store = filled("a");
    long[] size = new long[3];
    for (int i = 0; i < 3; i++) {
      size[i] = ClosedBinlogs.local(store, NAMES.get(i)).length;
    }
    Archive a = archived(store, size[2] + size[0] + 100);
    ArchiveTier tier = a.tier();
    tier.pin(NAMES.get(0));
    get(tier.fetch(NAMES.get(0)));
    get(tier.fetch(NAMES.get(1)));
    get(tier.fetch(NAMES.get(2))); // needs room: the second goes, the pinned first stays
    assertThat(tier.cached(NAMES.get(0))).isPresent();
    assertThat(tier.cached(NAMES.get(1))).isEmpty();
    assertThat(tier.cached(NAMES.get(2))).isPresent();
    assertThat(a.status().cacheBytes()).isEqualTo(size[0] + size[2]);

    tier.unpin(NAMES.get(0));
    get(tier.fetch(NAMES.get(1))); // now the first is the least recently used
    assertThat(tier.cached(NAMES.get(0))).isEmpty();
    assertThat(tier.cached(NAMES.get(1))).isPresent();
    assertThat(tier.cached(NAMES.get(2))).isPresent();
    assertThat(a.status().cacheBytes()).isEqualTo(size[1] + size[2]);
  }

  @Test
  void aFetchFailsClearlyWhileTheServerIsDownAndSucceedsOnceItIsBack() throws Exception {
    BinlogStore store = filled("a");
    Archive a = archived(store, ArchiveConfig.DEFAULT_CACHE_BYTES);
    String name = NAMES.get(1);
    s3.stop();
    try {
      assertThatThrownBy(() -> get(a.tier().fetch(name)))
          .isInstanceOf(ExecutionException.class)
          .hasMessageContaining("fetching " + name + " from the archive failed");
      assertThat(a.tier().cached(name)).isEmpty();
      assertThat(a.status().fetchFailures()).isEqualTo(1);
      assertThat(a.tier().files()).as("the catalog is kept").hasSize(3);
    } finally {
      s3.restart();
    }
    assertThat(get(a.tier().fetch(name))).hasBinaryContent(ClosedBinlogs.local(store, name));
  }

  @Test
  void aStalledFetchTimesOutAndTheNextCallFetchesAgain() throws Exception {
    BinlogStore store = filled("a");
    Archive a =
        archived(
            store,
            config(
                "1@relay-a",
                ArchiveConfig.DEFAULT_CACHE_BYTES,
                Duration.ZERO,
                Duration.ofSeconds(2)));
    String name = NAMES.get(0);
    proxy.add(Rule.on("GET", "/.*/binlogs/" + name).times(1).fault(Fault.stall()));
    assertThatThrownBy(() -> get(a.tier().fetch(name)))
        .isInstanceOf(ExecutionException.class)
        .hasMessageContaining("took longer than PT2S (--archive-fetch-timeout)");
    assertThat(a.tier().cached(name)).isEmpty();
    assertThat(a.status().fetchFailures()).isEqualTo(1);
    assertThat(get(a.tier().fetch(name))).hasBinaryContent(ClosedBinlogs.local(store, name));
    assertThat(gets(name)).isEqualTo(2);
  }

  @Test
  void retentionDeletesOldArchivedFilesButNeverTheNewest() throws Exception {
    BinlogStore store = filled("a");
    Archive a = archived(store, ArchiveConfig.DEFAULT_CACHE_BYTES);
    assertThat(a.runRetention()).as("no retention configured").isEmpty();
    List<FileMetadata> files = a.tier().files();
    long newest = files.get(2).lastEventTime();
    ObjectStore objects = keep(objects());
    ManualTime time = new ManualTime((newest + 86_400 + 3600) * 1000);
    ArchiveRetention retention =
        keep(
            new ArchiveRetention(
                a.catalog(), objects, prefix, Duration.ofDays(1), Duration.ofHours(1), time));
    assertThat(retention.runOnce()).containsExactly(NAMES.get(0), NAMES.get(1));
    assertThat(retention.deletedFiles()).isEqualTo(2);
    for (String n : NAMES.subList(0, 2)) {
      assertThat(objects.head(ArchivedFileRecord.metaKey(prefix, n))).isEmpty();
      assertThat(objects.head(ArchivedFileRecord.dataKey(prefix, n))).isEmpty();
    }
    assertThat(objects.head(ArchivedFileRecord.dataKey(prefix, NAMES.get(2)))).isPresent();
    assertThat(a.tier().files()).extracting(FileMetadata::name).containsExactly(NAMES.get(2));
    assertThat(a.listArchived()).extracting(ArchivedFileRecord::name).containsExactly(NAMES.get(2));
    time.advance(Duration.ofDays(30));
    assertThat(retention.runOnce()).as("the newest stays").isEmpty();
  }

  @Test
  void aReaderReadsFromTheArchivedFilesIntoTheLocalOnes() throws Exception {
    BinlogStore store = filled("a");
    Map<String, byte[]> original = new LinkedHashMap<>();
    for (FileMetadata f : store.files()) {
      original.put(f.name(), ClosedBinlogs.local(store, f.name()));
    }
    Archive a = archived(store, ArchiveConfig.DEFAULT_CACHE_BYTES);
    String firstLocal = NAMES.get(NAMES.size() - 1); // the store's newest file stays local
    eventually(
        WAIT, "all archived for the gate", () -> NAMES.stream().allMatch(a.gate()::archived));
    new Retention(
            store, RetentionPolicy.keepEverything(), null, Time.SYSTEM, ArchiveRules.of(a.gate()))
        .purgeTo(firstLocal, false);
    assertThat(store.files()).extracting(FileMetadata::name).containsExactly(firstLocal);

    TieredBinlog view = new TieredBinlog(store, a.tier());
    assertThat(view.files()).extracting(FileMetadata::name).isEqualTo(NAMES);
    Map<String, ByteArrayOutputStream> read = new LinkedHashMap<>();
    try (BinlogReader reader = openWhenFetched(view, Position.startOf(NAMES.get(0)))) {
      Position end = store.readableEnd();
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (!reader.position().equals(end)) {
        assertThat(System.nanoTime() - deadline).as("read to the end in time").isNegative();
        ReadResult r = reader.read(Duration.ofSeconds(5));
        if (r instanceof EventBatch batch) {
          try (batch) {
            ByteBuffer buf = ByteBuffer.allocate((int) batch.length());
            batch.copyTo(buf);
            read.computeIfAbsent(batch.file(), f -> new ByteArrayOutputStream()).write(buf.array());
          }
        } else {
          assertThat(r).isNotInstanceOf(org.binlogrelay.storage.read.Skipped.class);
        }
      }
    }
    for (Map.Entry<String, byte[]> e : original.entrySet()) {
      byte[] bytes = e.getValue();
      byte[] events = java.util.Arrays.copyOfRange(bytes, 4, bytes.length);
      ByteArrayOutputStream got = read.get(e.getKey());
      assertThat(got == null ? new byte[0] : got.toByteArray())
          .as("the events of " + e.getKey())
          .isEqualTo(events);
    }
  }

  /** Opens a reader at {@code start}, waiting for its archived file to be fetched. */
  private static BinlogReader openWhenFetched(TieredBinlog view, Position start) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      try {
        return BinlogReader.open(view, start, ReaderOptions.defaults());
      } catch (ArchiveFetchPending pending) {
        assertThat(System.nanoTime() - deadline).as("fetched in time").isNegative();
        get(view.tier().fetch(start.file()));
      }
    }
  }
}
