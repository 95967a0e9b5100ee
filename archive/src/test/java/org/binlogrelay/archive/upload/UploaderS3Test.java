package org.binlogrelay.archive.upload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.binlogrelay.archive.ArchivedFileRecord;
import org.binlogrelay.archive.objectstore.ObjectStore;
import org.binlogrelay.archive.objectstore.S3ObjectStore;
import org.binlogrelay.archive.objectstore.S3Settings;
import org.binlogrelay.archive.testing.S3FaultProxy;
import org.binlogrelay.archive.testing.S3FaultProxy.Fault;
import org.binlogrelay.archive.testing.S3FaultProxy.Rule;
import org.binlogrelay.archive.testing.S3ProxyProcess;
import org.binlogrelay.archive.upload.UploadStep.StepHook;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.Time;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The uploader's core scenarios against a real S3-compatible server (s3proxy 2.6.0 in a child JVM,
 * through the fault proxy, which counts the completed writes per key): single PUTs, a crash after
 * the object was written, another relay's identical upload, and 500s, 503s and a reset body. Each
 * test uses its own prefix. One s3proxy for the class. Multipart is covered by {@link UploaderTest}
 * only: s3proxy refuses parts below 5 MiB (EntityTooSmall, as S3 does) and the fixture's files are
 * smaller.
 */
class UploaderS3Test {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static S3ProxyProcess s3;
  private static S3FaultProxy proxy;
  private static ObjectStore objects;
  private static int prefixes;

  @TempDir Path tmp;
  private final List<Uploader> uploaders = new ArrayList<>();
  private final List<BinlogStore> stores = new ArrayList<>();
  private String prefix;

  @BeforeAll
  static void startServer() throws IOException {
    s3 = S3ProxyProcess.start();
    proxy = new S3FaultProxy(s3.endpoint());
    objects =
        new S3ObjectStore(
            S3Settings.forBucket(S3ProxyProcess.BUCKET)
                .withPathStyle(true)
                .withRegion("us-east-1")
                .withStaticCredentials(S3ProxyProcess.IDENTITY, S3ProxyProcess.CREDENTIAL)
                .withTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(30))
                .withEndpoint(proxy.endpoint()));
  }

  @AfterAll
  static void stopServer() throws IOException {
    if (objects != null) {
      objects.close();
    }
    if (proxy != null) {
      proxy.close();
    }
    if (s3 != null) {
      s3.close();
    }
  }

  @AfterEach
  void tearDown() throws Exception {
    uploaders.forEach(u -> u.stop(Duration.ofSeconds(10)));
    for (BinlogStore s : stores) {
      s.close();
    }
    proxy.clearRules();
    proxy.clearExchanges();
  }

  private UploadConfig config(String by) {
    if (prefix == null) {
      prefixes++;
      prefix = "u" + prefixes + "/";
    }
    return UploadConfig.defaults(prefix, by)
        .withBackoff(Duration.ofMillis(1), Duration.ofMillis(50), Duration.ofMillis(100));
  }

  @Test
  void archivesEveryClosedFileOnce() throws Exception {
    BinlogStore store = store("a");
    Uploader u = uploader(store, config("1@relay-a"), StepHook.NONE);
    u.start();
    awaitArchived(u);
    assertArchivedOnce(store);
    assertThat(u.counters().uploadedFiles()).isEqualTo(3);
  }

  @Test
  void aCrashAfterTheObjectWasWrittenDoesNotWriteItAgain() throws Exception {
    BinlogStore store = store("a");
    CountDownLatch crashed = new CountDownLatch(1);
    AtomicInteger seen = new AtomicInteger();
    StepHook crash =
        (name, s) -> {
          if (s == UploadStep.OBJECT_WRITTEN && seen.incrementAndGet() == 2) {
            crashed.countDown();
            throw new UploaderTest.SimulatedCrash(name + " at " + s);
          }
        };
    Uploader first = uploader(store, config("1@relay-a"), crash);
    first.start();
    assertThat(crashed.await(60, TimeUnit.SECONDS)).isTrue();
    first.stop(Duration.ofSeconds(10));
    Uploader second = uploader(store, config("1@relay-a"), StepHook.NONE);
    second.start();
    awaitArchived(second);
    assertArchivedOnce(store);
  }

  @Test
  void anotherRelaysUploadIsFoundAndNothingIsSent() throws Exception {
    Uploader b = uploader(store("b"), config("2@relay-b"), StepHook.NONE);
    b.start();
    awaitArchived(b);
    b.stop(Duration.ofSeconds(10));
    BinlogStore a = store("a");
    Uploader relayA = uploader(a, config("1@relay-a"), StepHook.NONE);
    relayA.start();
    awaitArchived(relayA);
    assertArchivedOnce(a);
    assertThat(relayA.counters().alreadyArchivedFiles()).isEqualTo(3);
  }

  @Test
  void slowDownsAndALostAnswerEndWithOneWritePerKey() throws Exception {
    BinlogStore store = store("a");
    proxy.add(Rule.on("PUT", "/.*/binlogs/binlog.000001").times(2).fault(Fault.slowDown()));
    proxy.add(Rule.on("PUT", "/.*/binlogs/binlog.000002").nth(1).fault(Fault.reset()));
    proxy.add(Rule.on("HEAD", "/.*/meta/binlog.000003.meta").times(3).fault(Fault.internalError()));
    Uploader u = uploader(store, config("1@relay-a"), StepHook.NONE);
    u.start();
    awaitArchived(u);
    assertArchivedOnce(store);
    assertThat(u.counters().failures(FailureKind.SERVER_ERROR)).isPositive();
  }

  private BinlogStore store(String dir) throws Exception {
    BinlogStore s = ClosedBinlogs.filled(tmp.resolve(dir));
    stores.add(s);
    return s;
  }

  private Uploader uploader(BinlogStore store, UploadConfig config, StepHook hook) {
    Uploader u = new Uploader(store, objects, config, Time.SYSTEM, () -> 0.5, hook);
    uploaders.add(u);
    return u;
  }

  private static void awaitArchived(Uploader u) throws Exception {
    eventually(
        WAIT,
        "archived, status " + u.status(),
        () -> ClosedBinlogs.NAMES.stream().allMatch(u.gate()::archived));
    eventually(WAIT, "nothing pending", () -> u.counters().pendingFiles() == 0);
  }

  private void assertArchivedOnce(BinlogStore store) throws Exception {
    for (FileMetadata f : ClosedBinlogs.closed(store)) {
      String data = ArchivedFileRecord.dataKey(prefix, f.name());
      String meta = ArchivedFileRecord.metaKey(prefix, f.name());
      try (InputStream in = objects.get(data, 0, -1)) {
        assertThat(in.readAllBytes()).as(data).isEqualTo(ClosedBinlogs.local(store, f.name()));
      }
      byte[] record;
      try (InputStream in = objects.get(meta, 0, -1)) {
        record = in.readAllBytes();
      }
      assertThat(ArchivedFileRecord.decode(record, meta, f.name()).file()).isEqualTo(f);
      assertThat(proxy.completedWrites("/" + S3ProxyProcess.BUCKET + "/" + data))
          .as(data)
          .isEqualTo(1);
      assertThat(proxy.completedWrites("/" + S3ProxyProcess.BUCKET + "/" + meta))
          .as(meta)
          .isEqualTo(1);
    }
    assertThat(objects.listMultipartUploads(prefix)).isEmpty();
  }
}
