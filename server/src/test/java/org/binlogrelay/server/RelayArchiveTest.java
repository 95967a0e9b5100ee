package org.binlogrelay.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;
import static org.binlogrelay.server.FlavorDetectionTest.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.binlogrelay.archive.Archive;
import org.binlogrelay.archive.ArchiveConfig;
import org.binlogrelay.archive.ArchiveLocation;
import org.binlogrelay.archive.ArchivedFileRecord;
import org.binlogrelay.archive.objectstore.S3Settings;
import org.binlogrelay.archive.testing.S3ProxyProcess;
import org.binlogrelay.archive.upload.UploadConfig;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.server.downstream.sql.BinlogListing;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.Time;
import org.binlogrelay.storage.read.testing.SourceFiles;
import org.binlogrelay.storage.read.testing.TestStores;
import org.binlogrelay.storage.tier.TieredBinlog;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A relay started with an archive against a real S3-compatible server (s3proxy as a child JVM),
 * without a primary: it uploads the closed files its store holds, serves and lists through the
 * tiered view, gives the admin API the archive, finds where the archive ends (for an empty store's
 * bootstrap) and closes cleanly.
 */
@Timeout(120)
class RelayArchiveTest {
  private static S3ProxyProcess s3;

  @TempDir Path dir;

  @BeforeAll
  static void startS3() throws Exception {
    s3 = S3ProxyProcess.start();
  }

  @AfterAll
  static void stopS3() {
    if (s3 != null) {
      s3.close();
    }
  }

  private static ArchiveConfig archive(String prefix) {
    ArchiveLocation location = new ArchiveLocation(S3ProxyProcess.BUCKET, prefix);
    S3Settings settings =
        S3Settings.forBucket(S3ProxyProcess.BUCKET)
            .withEndpoint(s3.endpoint())
            .withRegion("us-east-1")
            .withPathStyle(true)
            .withStaticCredentials(S3ProxyProcess.IDENTITY, S3ProxyProcess.CREDENTIAL);
    UploadConfig upload =
        UploadConfig.defaults(prefix, "9001@relay-archive-test")
            .withBackoff(Duration.ofMillis(100), Duration.ofSeconds(1), Duration.ofSeconds(1));
    return ArchiveConfig.defaults(location, settings, upload);
  }

  @Test
  void uploadsTheStoresClosedFilesAndServesThroughTheTieredView() throws Exception {
    Path data = dir.resolve("data");
    List<String> closed;
    try (BinlogStore store = TestStores.filled(data, SourceFiles.mysql())) {
      TestStores.settle(store);
      closed = store.files().stream().filter(FileMetadata::closed).map(FileMetadata::name).toList();
    }
    assertThat(closed).as("fixture files closed by a rotation").isNotEmpty();

    Relay relay =
        new Relay(
            config(data, GtidFlavor.MYSQL, null, Duration.ZERO).withArchive(archive("relay-a/")),
            Time.SYSTEM);
    relay.start();
    try {
      Archive archive = relay.archive().orElseThrow();
      assertThat(archive.location().toString())
          .isEqualTo("s3://" + S3ProxyProcess.BUCKET + "/relay-a/");
      assertThat(relay.binlogs()).isInstanceOf(TieredBinlog.class);
      RelayAdmin admin = new RelayAdmin(relay, Time.SYSTEM, Duration.ofSeconds(10));
      assertThat(admin.archive()).containsSame(archive);
      assertThat(admin.binlogs()).isSameAs(relay.binlogs());

      eventually(
          Duration.ofSeconds(60),
          "every closed file uploaded and verified",
          () -> archive.listArchived().stream().map(ArchivedFileRecord::name).toList(),
          names -> names.equals(closed));
      assertThat(archive.status().uploadedFiles()).isEqualTo(closed.size());

      // an empty store would continue the archive at the file after its newest one: the store's
      // open file here
      String open = relay.store().files().get(relay.store().files().size() - 1).name();
      assertThat(new ArchiveStart(archive).nextFile()).contains(open);

      // SHOW BINARY LOGS' rows carry a tier with an archive
      BinlogListing listing = relay.listing();
      assertThat(listing.files()).allSatisfy(f -> assertThat(f.tier()).isNotNull());
    } finally {
      relay.close();
    }
    assertThat(relay.closedCleanly()).isTrue();
  }

  @Test
  void anEmptyArchiveHasNoEnd() throws Exception {
    Relay relay =
        new Relay(
            config(dir.resolve("data"), GtidFlavor.MARIADB, null, Duration.ZERO)
                .withArchive(archive("relay-empty/")),
            Time.SYSTEM);
    relay.start();
    try {
      assertThat(new ArchiveStart(relay.archive().orElseThrow()).nextFile()).isEmpty();
    } finally {
      relay.close();
    }
    assertThat(relay.closedCleanly()).isTrue();
  }
}
