package org.binlogrelay.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.binlogrelay.archive.codec.ArchiveKey;
import org.binlogrelay.archive.codec.ChunkCodec;
import org.binlogrelay.archive.codec.KeyRing;
import org.binlogrelay.archive.codec.ObjectEncoding;
import org.binlogrelay.archive.fetch.ArchiveFetcher;
import org.binlogrelay.archive.objectstore.ObjectStore;
import org.binlogrelay.archive.objectstore.S3ObjectStore;
import org.binlogrelay.archive.objectstore.S3Settings;
import org.binlogrelay.archive.testing.S3ProxyProcess;
import org.binlogrelay.archive.upload.ClosedBinlogs;
import org.binlogrelay.archive.upload.UploadConfig;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.Time;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The archive with zstd and AES-256-GCM against a real S3-compatible server (s3proxy 2.6.0 in a
 * child JVM): the objects stored are in the chunk format, not the files' bytes, with the key id in
 * their user metadata and records; fetched back they are the files' bytes; a relay without the key,
 * or with another key under its id, cannot read them and says which key id it lacks; a relay that
 * moved to a new key reads old objects with the old key in its decryption keys directory. Key files
 * are read through {@link KeyRing#load}, as the relay's options do. One s3proxy for the class; each
 * test its own prefix.
 */
class ArchiveEncodingS3Test {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final List<String> NAMES = ClosedBinlogs.NAMES;
  private static S3ProxyProcess s3;
  private static int prefixes;

  @TempDir Path tmp;
  private final List<AutoCloseable> open = new ArrayList<>();
  private final Map<Archive, Path> dataDirs = new HashMap<>();
  private String prefix;

  @BeforeAll
  static void startServer() throws IOException {
    s3 = S3ProxyProcess.start();
  }

  @AfterAll
  static void stopServer() throws IOException {
    if (s3 != null) {
      s3.close();
    }
  }

  @AfterEach
  void tearDown() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
  }

  @Test
  void encryptedCompressedObjectsAreStoredEncodedAndFetchedBackAsTheFilesBytes() throws Exception {
    Path keyFile = keyFile("current.key", 1);
    KeyRing keys = KeyRing.load(keyFile, null, null);
    String keyId = keys.encryptionKey().orElseThrow().id();
    BinlogStore store = keep(ClosedBinlogs.filled(tmp.resolve("a")));
    Archive a = archived(store, codec("zstd", keys));
    ObjectStore objects = keep(objects());
    for (String n : NAMES) {
      byte[] local = ClosedBinlogs.local(store, n);
      byte[] object;
      try (InputStream in = objects.get(ArchivedFileRecord.dataKey(prefix, n), 0, -1)) {
        object = in.readAllBytes();
      }
      assertThat(new String(Arrays.copyOf(object, 7), StandardCharsets.US_ASCII))
          .as(n + ": the stored object's magic")
          .isEqualTo("BRARCH1");
      assertThat(object).as(n + ": stored bytes are not the file's").isNotEqualTo(local);
      ArchivedFileRecord r = a.catalog().record(n).orElseThrow();
      assertThat(r.encoding()).isEqualTo("zstd+aes-gcm");
      assertThat(r.keyId()).isEqualTo(keyId);
      assertThat(r.objectSize()).isEqualTo(object.length);
      assertThat(r.chunkOffsets()).isNotEmpty();
      assertThat(objects.head(ArchivedFileRecord.dataKey(prefix, n)).orElseThrow().size())
          .isEqualTo(object.length);
      assertThat(get(a.tier().fetch(n))).as(n + " fetched").hasBinaryContent(local);
    }
    try (Stream<Path> staged =
        Files.list(store.directory().resolve("archive").resolve("staging"))) {
      assertThat(staged).as("staged objects once verified").isEmpty();
    }
  }

  @Test
  void withoutTheKeyOrWithAnotherUnderItsIdAFetchFailsNamingTheKeyIdAndOldKeysStillRead()
      throws Exception {
    KeyRing old = KeyRing.load(keyFile("old.key", 2), "2026-q3", null);
    BinlogStore store = keep(ClosedBinlogs.filled(tmp.resolve("a")));
    archived(store, codec("none", old));
    String name = NAMES.get(0);

    Archive noKey = reader("b", ChunkCodec.forReading(KeyRing.none()));
    assertThatThrownBy(() -> get(noKey.tier().fetch(name)))
        .isInstanceOf(ExecutionException.class)
        .hasMessageContaining("fetching " + name + " from the archive failed")
        .hasMessageContaining("archive key id 2026-q3")
        .hasMessageContaining("which this relay does not have");
    assertNothingCached(noKey, name);

    KeyRing impostor = KeyRing.load(keyFile("impostor.key", 3), "2026-q3", null);
    Archive wrongKey = reader("c", codec("none", impostor));
    assertThatThrownBy(() -> get(wrongKey.tier().fetch(name)))
        .isInstanceOf(ExecutionException.class)
        .hasMessageContaining("archive key id 2026-q3")
        .hasMessageContaining("is another key");
    assertNothingCached(wrongKey, name);

    // Rotation: a new key encrypts, the old one (named by its id) sits in the decryption keys.
    Path keysDir = Files.createDirectory(tmp.resolve("old-keys"));
    Files.move(tmp.resolve("old.key"), keysDir.resolve("2026-q3.key"));
    KeyRing rotated = KeyRing.load(keyFile("new.key", 4), null, keysDir);
    Archive b = reader("d", codec("zstd:5", rotated));
    for (String n : NAMES) {
      assertThat(get(b.tier().fetch(n))).hasBinaryContent(ClosedBinlogs.local(store, n));
    }
  }

  private void assertNothingCached(Archive a, String name) throws IOException {
    assertThat(a.tier().cached(name)).isEmpty();
    assertThat(a.status().fetchFailures()).isEqualTo(1);
    Path cache = ArchiveFetcher.directory(dataDirs.get(a));
    try (Stream<Path> files = Files.list(cache)) {
      assertThat(files).as("nothing left in the cache").isEmpty();
    }
  }

  private Path keyFile(String name, int seed) throws IOException {
    byte[] k = new byte[32];
    for (int i = 0; i < k.length; i++) {
      k[i] = (byte) (seed * 17 + i);
    }
    Path p = tmp.resolve(name);
    Files.writeString(p, HexFormat.of().formatHex(k) + "\n");
    Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-------"));
    assertThat(ArchiveKey.defaultId(k)).hasSize(16);
    return p;
  }

  private static ChunkCodec codec(String compression, KeyRing keys) {
    return new ChunkCodec(
        ObjectEncoding.of(compression, keys.encryptionKey().isPresent()),
        ChunkCodec.DEFAULT_CHUNK_SIZE,
        keys);
  }

  private static ObjectStore objects() {
    return new S3ObjectStore(
        S3Settings.forBucket(S3ProxyProcess.BUCKET)
            .withPathStyle(true)
            .withRegion("us-east-1")
            .withStaticCredentials(S3ProxyProcess.IDENTITY, S3ProxyProcess.CREDENTIAL)
            .withTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(30))
            .withEndpoint(s3.endpoint()));
  }

  private ArchiveConfig config(ChunkCodec codec) {
    if (prefix == null) {
      prefixes++;
      prefix = "e" + prefixes + "/";
    }
    UploadConfig upload =
        UploadConfig.defaults(prefix, "1@relay-a")
            .withBackoff(Duration.ofMillis(1), Duration.ofMillis(50), Duration.ofMillis(100));
    return new ArchiveConfig(
            new ArchiveLocation(S3ProxyProcess.BUCKET, prefix),
            S3Settings.forBucket(S3ProxyProcess.BUCKET),
            upload,
            ArchiveConfig.DEFAULT_CACHE_BYTES,
            Duration.ofSeconds(30),
            Duration.ZERO,
            2)
        .withCodec(codec);
  }

  /** Archives {@code store}'s three files and waits until the catalog lists them. */
  private Archive archived(BinlogStore store, ChunkCodec codec) throws Exception {
    Archive a = keep(Archive.open(objects(), config(codec), store, Time.SYSTEM));
    dataDirs.put(a, store.directory());
    a.start();
    eventually(WAIT, "three files archived", () -> a.tier().files().size() == NAMES.size());
    return a;
  }

  /** Another relay's archive on an empty store, reading the same prefix. */
  private Archive reader(String dir, ChunkCodec codec) throws Exception {
    BinlogStore empty = keep(ClosedBinlogs.open(tmp.resolve(dir)));
    Archive a = keep(Archive.open(objects(), config(codec), empty, Time.SYSTEM));
    dataDirs.put(a, empty.directory());
    a.start();
    eventually(WAIT, "the archive's three files listed", () -> a.tier().files().size() == 3);
    return a;
  }

  private static Path get(CompletableFuture<Path> f) throws Exception {
    return f.get(1, TimeUnit.MINUTES);
  }

  private <T extends AutoCloseable> T keep(T c) {
    open.add(c);
    return c;
  }
}
