package org.binlogrelay.server.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.binlogrelay.archive.Archive;
import org.binlogrelay.archive.ArchiveConfig;
import org.binlogrelay.archive.ArchiveLocation;
import org.binlogrelay.archive.objectstore.ObjectStore;
import org.binlogrelay.archive.objectstore.S3ObjectStore;
import org.binlogrelay.archive.objectstore.S3Settings;
import org.binlogrelay.archive.testing.S3ProxyProcess;
import org.binlogrelay.archive.upload.FailureKind;
import org.binlogrelay.archive.upload.UploadConfig;
import org.binlogrelay.archive.upload.UploadStatus;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.StoreConfig;
import org.binlogrelay.storage.Time;
import org.binlogrelay.storage.retention.ArchiveRules;
import org.binlogrelay.storage.retention.Retention;
import org.binlogrelay.storage.retention.RetentionPolicy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The archive's meters as a DBA scrapes them from {@link RelayMetrics}: a real store (the MySQL 9.7
 * fixture's three files, the first two closed) archived to a real S3-compatible server (s3proxy
 * 2.6.0 in a child JVM, one for the class), with a real {@link Retention} that keeps unarchived
 * files. Values are read from the Prometheus text exposition, as Prometheus reads them.
 */
@Timeout(120)
class ArchiveMetersTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static S3ProxyProcess s3;

  @TempDir Path dir;

  private final List<AutoCloseable> closing = new ArrayList<>();

  @BeforeAll
  static void startServer() throws IOException {
    if (System.getProperty("s3proxy.jar") == null) {
      // the archive module's build copies s3proxy's jar into its own target/ (a reactor build
      // with -am runs it first); the server's build does not copy it again
      Path jar;
      try (Stream<Path> jars = Files.list(checkout("archive/target/s3proxy"))) {
        jar =
            jars.filter(p -> p.getFileName().toString().endsWith("-jar-with-dependencies.jar"))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no s3proxy jar in archive/target"));
      }
      System.setProperty("s3proxy.jar", jar.toString());
    }
    s3 = S3ProxyProcess.start();
  }

  @AfterAll
  static void stopServer() {
    if (s3 != null) {
      s3.close();
    }
  }

  @AfterEach
  void close() throws Exception {
    for (int i = closing.size() - 1; i >= 0; i--) {
      closing.get(i).close();
    }
  }

  @Test
  void uploadsBacklogStateAndKeptFilesAreScraped() throws Exception {
    BinlogStore store = store();
    List<FileMetadata> closed = store.files().stream().filter(FileMetadata::closed).toList();
    assertThat(closed).hasSize(2);
    Archive archive = archive(store, S3ProxyProcess.BUCKET, "m1/");
    Retention retention =
        new Retention(
            store,
            RetentionPolicy.keepEverything().withMaxFiles(1),
            null,
            Time.SYSTEM,
            ArchiveRules.of(archive.gate()));
    RelayMetrics metrics = metrics(store, retention);
    assertThat(metrics.scrape())
        .as("no archive meters before the relay has an archive")
        .doesNotContain("binlogrelay_archive_")
        .doesNotContain("binlogrelay_retention_kept_unarchived_files");

    metrics.archive(archive);
    assertThat(value(metrics, "binlogrelay_archive_state{state=\"stopped\"}")).isEqualTo(1);
    assertThat(value(metrics, "binlogrelay_archive_state{state=\"ok\"}")).isZero();
    retention.run();
    assertThat(value(metrics, "binlogrelay_retention_kept_unarchived_files"))
        .as("retention wants both closed files gone but neither is archived")
        .isEqualTo(2);

    archive.start();
    eventually(
        WAIT,
        "both closed files uploaded",
        () -> value(metrics, "binlogrelay_archive_uploaded_files_total") == 2);
    assertThat(value(metrics, "binlogrelay_archive_uploaded_bytes_total"))
        .isEqualTo((double) closed.stream().mapToLong(FileMetadata::size).sum());
    assertThat(value(metrics, "binlogrelay_archive_upload_seconds_total")).isPositive();
    assertThat(value(metrics, "binlogrelay_archive_last_upload_duration_seconds"))
        .isPositive()
        .isLessThanOrEqualTo(value(metrics, "binlogrelay_archive_upload_seconds_total"));
    assertThat(value(metrics, "binlogrelay_archive_pending_files")).isZero();
    assertThat(value(metrics, "binlogrelay_archive_pending_bytes")).isZero();
    assertThat(value(metrics, "binlogrelay_archive_oldest_pending_age_seconds")).isZero();
    for (FailureKind kind : FailureKind.values()) {
      assertThat(value(metrics, "binlogrelay_archive_failures_total{kind=\"" + lower(kind) + "\"}"))
          .as(kind.name())
          .isZero();
    }
    eventually(
        WAIT,
        "the state meter at ok",
        () -> value(metrics, "binlogrelay_archive_state{state=\"ok\"}") == 1);
    for (UploadStatus.State s : UploadStatus.State.values()) {
      if (s != UploadStatus.State.OK) {
        assertThat(value(metrics, "binlogrelay_archive_state{state=\"" + lower(s) + "\"}"))
            .as(s.name())
            .isZero();
      }
    }
    // what the archive holds and the cache: as the archive's own status says
    eventually(
        WAIT,
        "the archived-files meter as the status",
        () ->
            value(metrics, "binlogrelay_archive_archived_files")
                == archive.status().archivedFiles());
    assertThat(value(metrics, "binlogrelay_archive_archived_bytes"))
        .isEqualTo((double) archive.status().archivedBytes());
    assertThat(value(metrics, "binlogrelay_archive_cache_bytes"))
        .isEqualTo((double) archive.status().cacheBytes());
    assertThat(value(metrics, "binlogrelay_archive_fetches_total")).isZero();
    assertThat(value(metrics, "binlogrelay_archive_fetched_bytes_total")).isZero();
    assertThat(value(metrics, "binlogrelay_archive_fetch_failures_total")).isZero();
    assertThat(value(metrics, "binlogrelay_archive_deleted_files_total")).isZero();

    assertThat(retention.run().removed()).hasSize(2);
    assertThat(value(metrics, "binlogrelay_retention_kept_unarchived_files")).isZero();
    assertThatThrownBy(() -> metrics.archive(archive))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("registered already");
  }

  @Test
  void aMissingBucketShowsAsFailingWithItsKindAndABacklog() throws Exception {
    BinlogStore store = store();
    List<FileMetadata> closed = store.files().stream().filter(FileMetadata::closed).toList();
    Archive archive = archive(store, "no-such-bucket", "m2/");
    RelayMetrics metrics = metrics(store, null);
    metrics.archive(archive);
    archive.start();
    eventually(
        WAIT,
        "an upload failure counted as no_bucket",
        () -> value(metrics, "binlogrelay_archive_failures_total{kind=\"no_bucket\"}") > 0);
    eventually(
        WAIT,
        "the state meter at failing",
        () -> value(metrics, "binlogrelay_archive_state{state=\"failing\"}") == 1);
    assertThat(value(metrics, "binlogrelay_archive_state{state=\"ok\"}")).isZero();
    assertThat(value(metrics, "binlogrelay_archive_uploaded_files_total")).isZero();
    assertThat(value(metrics, "binlogrelay_archive_pending_files")).isEqualTo(2);
    assertThat(value(metrics, "binlogrelay_archive_pending_bytes"))
        .isEqualTo((double) closed.stream().mapToLong(FileMetadata::size).sum());
    assertThat(value(metrics, "binlogrelay_archive_oldest_pending_age_seconds"))
        .as("the fixture's files were closed long ago")
        .isPositive();
  }

  /** The fixture's three files as a store: the first two closed (each ends with a ROTATE). */
  private BinlogStore store() throws IOException {
    Path data = Files.createDirectories(dir.resolve("data"));
    Path fixtures = fixtures();
    List<String> names = List.of("binlog.000001", "binlog.000002", "binlog.000003");
    StringBuilder index = new StringBuilder();
    for (String name : names) {
      Files.copy(fixtures.resolve(name), data.resolve(name));
      index.append("./").append(name).append('\n');
    }
    Files.writeString(data.resolve("binlog.index"), index);
    BinlogStore store =
        BinlogStore.open(
            StoreConfig.builder(data, GtidFlavor.MYSQL).maxEventSize(16 << 20).build());
    closing.add(store);
    return store;
  }

  private Archive archive(BinlogStore store, String bucket, String prefix) {
    ObjectStore objects =
        new S3ObjectStore(
            S3Settings.forBucket(bucket)
                .withPathStyle(true)
                .withRegion("us-east-1")
                .withStaticCredentials(S3ProxyProcess.IDENTITY, S3ProxyProcess.CREDENTIAL)
                .withTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(30))
                .withEndpoint(s3.endpoint()));
    UploadConfig upload =
        UploadConfig.defaults(prefix, "9001@metrics-test")
            .withBackoff(Duration.ofMillis(1), Duration.ofMillis(50), Duration.ofMillis(100));
    Archive archive =
        Archive.open(
            objects,
            ArchiveConfig.defaults(
                ArchiveLocation.parse("s3://" + bucket + "/" + prefix),
                S3Settings.forBucket(bucket),
                upload),
            store,
            Time.SYSTEM);
    closing.add(archive);
    return archive;
  }

  private RelayMetrics metrics(BinlogStore store, Retention retention) {
    RelayMetrics metrics =
        new RelayMetrics(
            Time.SYSTEM,
            () -> store,
            () -> retention == null ? List.of() : List.of(retention),
            Optional::empty,
            () -> null,
            () -> null);
    closing.add(metrics);
    return metrics;
  }

  /** The value of one series (name and labels exactly as exposed) in a scrape of {@code m}. */
  static double value(RelayMetrics m, String series) {
    String prefix = series + " ";
    List<String> found =
        m.scrape()
            .lines()
            .filter(l -> l.startsWith(prefix))
            .map(l -> l.substring(prefix.length()))
            .toList();
    assertThat(found).as("one series " + series + " in the scrape").hasSize(1);
    return Double.parseDouble(found.get(0));
  }

  private static String lower(Enum<?> e) {
    return e.name().toLowerCase(java.util.Locale.ROOT);
  }

  private static Path fixtures() {
    return checkout("protocol/src/test/resources/fixtures/mysql-9.7");
  }

  private static Path checkout(String relative) {
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      if (Files.isDirectory(d.resolve(relative))) {
        return d.resolve(relative);
      }
    }
    throw new IllegalStateException(
        relative + " is not under a parent directory of " + Path.of("").toAbsolutePath());
  }
}
