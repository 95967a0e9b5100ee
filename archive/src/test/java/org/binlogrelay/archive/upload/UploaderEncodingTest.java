package org.binlogrelay.archive.upload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.binlogrelay.archive.ArchivedFileRecord;
import org.binlogrelay.archive.codec.ArchiveKey;
import org.binlogrelay.archive.codec.ChunkCodec;
import org.binlogrelay.archive.codec.KeyRing;
import org.binlogrelay.archive.codec.ObjectEncoding;
import org.binlogrelay.archive.upload.DirectoryObjectStore.Op;
import org.binlogrelay.archive.upload.UploadStep.StepHook;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The uploader with an encoding (zstd and/or AES-256-GCM, chunks of 16 KiB) against a real store
 * (the MySQL fixture's three closed files) and the directory-backed object store: each data object
 * is in the chunk format (not the file's bytes), written once, and decodes to the local bytes; the
 * metadata object records the encoding, key id and chunk offsets; the staged object is kept until
 * VERIFIED, so an upload resumed after a crash sends the very bytes it started with (its parts are
 * kept, none is sent twice), whatever the restarted uploader is configured with.
 */
class UploaderEncodingTest {
  private static final String PREFIX = "relay/";
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final int CHUNK = 16 << 10;
  private static final ArchiveKey KEY = ArchiveKey.of(key(7), null);

  @TempDir Path tmp;
  private final List<Uploader> uploaders = new ArrayList<>();
  private final List<BinlogStore> stores = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    uploaders.forEach(u -> u.stop(Duration.ofSeconds(10)));
    for (BinlogStore s : stores) {
      s.close();
    }
  }

  static byte[] key(int seed) {
    byte[] k = new byte[32];
    for (int i = 0; i < k.length; i++) {
      k[i] = (byte) (seed * 31 + i);
    }
    return k;
  }

  static ChunkCodec codec(String encoding) {
    return new ChunkCodec(ObjectEncoding.parse(encoding), CHUNK, KeyRing.of(List.of(KEY)));
  }

  @ParameterizedTest
  @ValueSource(strings = {"zstd+aes-gcm", "aes-gcm", "zstd:9"})
  void encodedObjectsAreWrittenOnceAndDecodeToTheFilesBytes(String encoding) throws Exception {
    BinlogStore store = store("a");
    DirectoryObjectStore objects = new DirectoryObjectStore(tmp.resolve("s3"));
    Uploader uploader = uploader(store, objects, StepHook.NONE, codec(encoding));
    uploader.start();
    awaitArchived(uploader);
    assertArchivedOnceEncoded(store, objects, ObjectEncoding.parse(encoding));
    assertThat(stagingFiles(store)).as("staged objects once VERIFIED").isEmpty();
    assertThat(uploader.stagedBytes()).isZero();
  }

  /**
   * The uploader "crashes" at the {@code occurrence}-th time it reaches {@code step} (file 3 has 13
   * parts of 16 KiB when encrypted); a new uploader with a new random nonce source finishes from
   * the staged bytes: no object written twice, no part sent twice but the one sent and not
   * persisted.
   */
  @ParameterizedTest(name = "{0} #{1}")
  @CsvSource({
    "DIGESTED, 3",
    "MULTIPART_CREATED, 1",
    "PART_SENT, 5",
    "PART_PERSISTED, 5",
    "OBJECT_WRITTEN, 3",
    "UPLOADED_PERSISTED, 3",
    "META_WRITTEN, 3",
    "VERIFIED_PERSISTED, 2"
  })
  void resumesAfterACrashFromTheStagedBytes(UploadStep step, int occurrence) throws Exception {
    BinlogStore store = store("a");
    DirectoryObjectStore objects = new DirectoryObjectStore(tmp.resolve("s3"));
    CountDownLatch crashed = new CountDownLatch(1);
    AtomicInteger seen = new AtomicInteger();
    StepHook crash =
        (name, s) -> {
          if (s == step && seen.incrementAndGet() == occurrence) {
            crashed.countDown();
            throw new UploaderTest.SimulatedCrash(name + " at " + s);
          }
        };
    Uploader first = uploader(store, objects, crash, codec("aes-gcm"));
    first.start();
    assertThat(crashed.await(60, TimeUnit.SECONDS)).as("reached %s #%d", step, occurrence).isTrue();
    assertThat(first.stop(Duration.ofSeconds(10))).isTrue();
    if (step != UploadStep.VERIFIED_PERSISTED) {
      assertThat(stagingFiles(store)).as("staged while not VERIFIED").isNotEmpty();
    }

    Uploader second = uploader(store, objects, StepHook.NONE, codec("aes-gcm"));
    second.start();
    awaitArchived(second);
    assertArchivedOnceEncoded(store, objects, ObjectEncoding.AES_GCM);
    assertThat(objects.calls(Op.UPLOAD_PART))
        .as("13 parts in all, a part sent but not persisted once more")
        .isEqualTo(step == UploadStep.PART_SENT ? 14 : 13);
    assertThat(stagingFiles(store)).isEmpty();
  }

  @Test
  void aRestartWithAnotherEncodingFinishesTheStagedUploadAsItWasStarted() throws Exception {
    BinlogStore store = store("a");
    DirectoryObjectStore objects = new DirectoryObjectStore(tmp.resolve("s3"));
    CountDownLatch crashed = new CountDownLatch(1);
    StepHook crash =
        (name, s) -> {
          if (s == UploadStep.PART_PERSISTED && crashed.getCount() > 0) {
            crashed.countDown();
            throw new UploaderTest.SimulatedCrash(name + " at " + s);
          }
        };
    Uploader first = uploader(store, objects, crash, codec("aes-gcm"));
    first.start();
    assertThat(crashed.await(60, TimeUnit.SECONDS)).isTrue();
    assertThat(first.stop(Duration.ofSeconds(10))).isTrue();

    Uploader second =
        uploader(store, objects, StepHook.NONE, ChunkCodec.forReading(KeyRing.none()));
    second.start();
    awaitArchived(second);
    // files 1 and 2 (one PUT each) were archived before the crash in file 3's parts
    assertThat(record(objects, "binlog.000003").encoding())
        .as("the staged upload, finished as started")
        .isEqualTo("aes-gcm");
    assertThat(objects.calls(Op.UPLOAD_PART)).as("no part sent twice").isEqualTo(13);
    assertThat(objects.keysWrittenMoreThanOnce()).isEmpty();
    assertThat(objects.unfinishedUploads()).isZero();
  }

  @Test
  void aStagedObjectWithoutItsSidecarIsEncodedAgain() throws Exception {
    BinlogStore store = store("a");
    Path staging = StagedObject.directory(store.directory());
    Files.createDirectories(staging);
    Files.write(
        staging.resolve("binlog.000001.object"),
        "cut short by a crash".getBytes(StandardCharsets.US_ASCII));
    Files.write(staging.resolve("binlog.000002.0123.encoding"), new byte[10]);
    DirectoryObjectStore objects = new DirectoryObjectStore(tmp.resolve("s3"));
    Uploader uploader = uploader(store, objects, StepHook.NONE, codec("zstd+aes-gcm"));
    uploader.start();
    awaitArchived(uploader);
    assertArchivedOnceEncoded(store, objects, ObjectEncoding.ZSTD_AES_GCM);
    assertThat(stagingFiles(store)).isEmpty();
  }

  private static List<Path> stagingFiles(BinlogStore store) throws Exception {
    Path staging = StagedObject.directory(store.directory());
    if (!Files.isDirectory(staging)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(staging)) {
      return files.toList();
    }
  }

  private BinlogStore store(String dir) throws Exception {
    BinlogStore store = ClosedBinlogs.filled(tmp.resolve(dir));
    stores.add(store);
    return store;
  }

  private Uploader uploader(
      BinlogStore store, DirectoryObjectStore objects, StepHook hook, ChunkCodec codec) {
    UploadConfig config =
        UploadConfig.defaults(PREFIX, "1@relay-a")
            .withMultipartThreshold(16 << 10)
            .withBackoff(Duration.ofMillis(1), Duration.ofMillis(20), Duration.ofMillis(50));
    Uploader u = new Uploader(store, objects, config, Time.SYSTEM, () -> 0.5, hook, codec);
    uploaders.add(u);
    return u;
  }

  private static void awaitArchived(Uploader uploader) throws Exception {
    eventually(
        WAIT,
        "archived: " + ClosedBinlogs.NAMES,
        () -> ClosedBinlogs.NAMES.stream().allMatch(uploader.gate()::archived));
    eventually(WAIT, "nothing pending", () -> uploader.counters().pendingFiles() == 0);
  }

  private static ArchivedFileRecord record(DirectoryObjectStore objects, String name)
      throws Exception {
    String key = ArchivedFileRecord.metaKey(PREFIX, name);
    return ArchivedFileRecord.decode(objects.bytes(key), key, name);
  }

  /**
   * Every closed file: its data object is in the chunk format, not the file's bytes, and decodes
   * (with the key) to them; its record names the encoding, key id and chunk offsets; one write per
   * key; no multipart upload left.
   */
  private static void assertArchivedOnceEncoded(
      BinlogStore store, DirectoryObjectStore objects, ObjectEncoding encoding) throws Exception {
    for (FileMetadata f : ClosedBinlogs.closed(store)) {
      byte[] local = ClosedBinlogs.local(store, f.name());
      String data = ArchivedFileRecord.dataKey(PREFIX, f.name());
      byte[] object = objects.bytes(data);
      assertThat(new String(Arrays.copyOf(object, 7), StandardCharsets.US_ASCII))
          .as(data + " starts with the chunk format's magic")
          .isEqualTo("BRARCH1");
      assertThat(object).as(data + " is not the file's bytes").isNotEqualTo(local);
      ArchivedFileRecord r = record(objects, f.name());
      assertThat(r.file()).isEqualTo(f);
      assertThat(r.encoding()).isEqualTo(encoding.name());
      assertThat(r.keyId()).isEqualTo(encoding.encrypted() ? KEY.id() : "");
      assertThat(r.chunkSize()).isEqualTo(CHUNK);
      assertThat(r.chunkOffsets()).hasSize((int) ((f.size() + CHUNK - 1) / CHUNK));
      assertThat(r.objectSize()).isEqualTo(object.length);
      assertThat(r.sha256())
          .isEqualTo(LocalDigest.hex(LocalDigest.digest("SHA-256").digest(local)));
      ByteArrayOutputStream decoded = new ByteArrayOutputStream();
      ChunkCodec.forReading(KeyRing.of(List.of(KEY)))
          .decode(new ByteArrayInputStream(object), f.name(), encoding, decoded)
          .check(f.name(), f.size(), r.sha256());
      assertThat(decoded.toByteArray()).as(data + " decoded").isEqualTo(local);
      assertThat(objects.completedWrites(data)).as(data).isEqualTo(1);
      assertThat(objects.completedWrites(ArchivedFileRecord.metaKey(PREFIX, f.name())))
          .isEqualTo(1);
    }
    assertThat(objects.keysWrittenMoreThanOnce()).isEmpty();
    assertThat(objects.unfinishedUploads()).isZero();
  }
}
