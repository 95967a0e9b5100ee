package org.binlogrelay.archive.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.binlogrelay.protocol.testing.FixtureBinlogs;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The archived object's encodings: round trips on the real servers' binlog fixtures and on edge
 * sizes, and every kind of damage refused (wrong key, swapped or moved chunks, flipped bits,
 * truncation).
 */
class ChunkCodecTest {
  private static final Logger LOG = LoggerFactory.getLogger(ChunkCodecTest.class);
  private static final List<String> FIXTURES =
      List.of(FixtureBinlogs.MYSQL, FixtureBinlogs.MARIADB, "mariadb-11.8");
  private static final List<ObjectEncoding> ENCODINGS =
      List.of(
          ObjectEncoding.IDENTITY,
          ObjectEncoding.ZSTD,
          ObjectEncoding.AES_GCM,
          ObjectEncoding.ZSTD_AES_GCM);
  private static final int SMALL_CHUNK = 4096;

  /** One encoding per seal (CRC32C, AES-GCM), for the exhaustive damage tests. */
  private static final List<ObjectEncoding> BOTH_SEALS =
      List.of(ObjectEncoding.ZSTD, ObjectEncoding.ZSTD_AES_GCM);

  @TempDir Path dir;

  private final ExecutorService pool = Executors.newFixedThreadPool(4);

  private final Random random = new Random(18);
  private final ArchiveKey key = ArchiveKey.of(bytes(32), null);
  private final KeyRing keys = KeyRing.of(List.of(key));

  @Test
  void fixturesRoundTripInEveryEncodingThroughATempFile() throws Exception {
    int files = 0;
    for (String fixture : FIXTURES) {
      for (String name : FixtureBinlogs.fileNames(fixture)) {
        byte[] binlog = FixtureBinlogs.bytes(fixture, name);
        Path path = dir.resolve(name);
        Files.write(path, binlog);
        for (ObjectEncoding encoding : ENCODINGS) {
          for (int chunkSize : List.of(64 * 1024, ChunkCodec.DEFAULT_CHUNK_SIZE)) {
            ChunkCodec codec = new ChunkCodec(encoding, chunkSize, keys);
            try (EncodedObject encoded = codec.encode(path, dir)) {
              byte[] object = Files.readAllBytes(encoded.file());
              checkEncoded(encoded, object, binlog, encoding);
              if (encoding.identity()) {
                assertThat(object).isEqualTo(binlog);
              } else {
                int chunks = Math.max(1, (binlog.length + chunkSize - 1) / chunkSize);
                assertThat(encoded.chunkOffsets()).hasSize(chunks);
                assertThat(rangedDecode(codec, object, name, encoding)).isEqualTo(binlog);
              }
              assertThat(decode(codec, object, name, encoding)).isEqualTo(binlog);
              try (FileChannel out =
                  FileChannel.open(
                      dir.resolve(name + ".out"),
                      StandardOpenOption.CREATE,
                      StandardOpenOption.WRITE,
                      StandardOpenOption.TRUNCATE_EXISTING)) {
                DecodedObject d =
                    codec.decode(new ByteArrayInputStream(object), name, encoding, out);
                d.check(name, binlog.length, encoded.plainSha256Hex());
              }
              assertThat(Files.readAllBytes(dir.resolve(name + ".out"))).isEqualTo(binlog);
            }
          }
        }
        files++;
      }
    }
    assertThat(files).isEqualTo(9);
    try (var left = Files.list(dir)) {
      assertThat(left.filter(p -> p.toString().endsWith(".encoding"))).isEmpty();
    }
  }

  @Test
  void edgeSizesRoundTrip() throws Exception {
    for (ObjectEncoding encoding : ENCODINGS) {
      ChunkCodec codec = new ChunkCodec(encoding, SMALL_CHUNK, keys);
      for (int size :
          List.of(0, 1, SMALL_CHUNK - 1, SMALL_CHUNK, SMALL_CHUNK + 1, 3 * SMALL_CHUNK)) {
        for (byte[] data : List.of(bytes(size), new byte[size])) {
          try (EncodedObject encoded =
              codec.encode(new ByteArrayInputStream(data), "binlog.000001", dir)) {
            byte[] object = Files.readAllBytes(encoded.file());
            checkEncoded(encoded, object, data, encoding);
            assertThat(decode(codec, object, "binlog.000001", encoding))
                .as("%s, %d bytes", encoding, size)
                .isEqualTo(data);
            if (!encoding.identity()) {
              int chunks = Math.max(1, (size + SMALL_CHUNK - 1) / SMALL_CHUNK);
              assertThat(encoded.chunkOffsets()).hasSize(chunks);
              assertThat(rangedDecode(codec, object, "binlog.000001", encoding)).isEqualTo(data);
            }
          }
        }
      }
    }
  }

  @Test
  void zstdShrinksABinlog() throws Exception {
    for (String fixture : FIXTURES) {
      String name = FixtureBinlogs.fileNames(fixture).get(2);
      byte[] binlog = FixtureBinlogs.bytes(fixture, name);
      for (ObjectEncoding encoding : List.of(ObjectEncoding.ZSTD, ObjectEncoding.ZSTD_AES_GCM)) {
        byte[] object = encode(new ChunkCodec(encoding, 64 * 1024, keys), binlog, name);
        LOG.info(
            "{} {} ({} bytes) as {}: {} bytes, {}%",
            fixture,
            name,
            binlog.length,
            encoding,
            object.length,
            100L * object.length / binlog.length);
        assertThat(object.length).isLessThan(binlog.length / 2);
      }
      byte[] plain = encode(new ChunkCodec(ObjectEncoding.AES_GCM, 64 * 1024, keys), binlog, name);
      assertThat(plain.length).isGreaterThan(binlog.length);
    }
  }

  @Test
  void incompressibleChunksAreStoredAsTheyAre() throws Exception {
    byte[] data = bytes(3 * SMALL_CHUNK);
    ChunkCodec codec = new ChunkCodec(ObjectEncoding.ZSTD, SMALL_CHUNK, keys);
    byte[] object = encode(codec, data, "binlog.000001");
    assertThat(object.length).isLessThan(data.length + 200);
    assertThat(decode(codec, object, "binlog.000001", ObjectEncoding.ZSTD)).isEqualTo(data);
  }

  @Test
  void unknownOrWrongKeyIsRefusedNamingTheKeyId() throws Exception {
    byte[] data = bytes(10_000);
    ChunkCodec writer = new ChunkCodec(ObjectEncoding.ZSTD_AES_GCM, SMALL_CHUNK, keys);
    byte[] object = encode(writer, data, "binlog.000007");

    ArchiveKey other = ArchiveKey.of(bytes(32), null);
    ChunkCodec unknown = ChunkCodec.forReading(KeyRing.of(List.of(other)));
    assertThatThrownBy(() -> decode(unknown, object, "binlog.000007", ObjectEncoding.ZSTD_AES_GCM))
        .isInstanceOfSatisfying(
            ObjectDecodeException.class,
            e -> assertThat(e.kind()).isEqualTo(ObjectDecodeException.Kind.UNKNOWN_KEY))
        .hasMessageContaining("binlog.000007 is encrypted with archive key id " + key.id())
        .hasMessageContaining("[" + other.id() + "]");
    assertThatThrownBy(
            () -> rangedDecode(unknown, object, "binlog.000007", ObjectEncoding.ZSTD_AES_GCM))
        .hasMessageContaining("archive key id " + key.id());
    assertThatThrownBy(
            () ->
                decode(
                    ChunkCodec.forReading(KeyRing.none()),
                    object,
                    "binlog.000007",
                    ObjectEncoding.ZSTD_AES_GCM))
        .hasMessageContaining("(it has no keys)");

    ArchiveKey impostor = ArchiveKey.of(bytes(32), key.id());
    ChunkCodec wrong = ChunkCodec.forReading(KeyRing.of(List.of(impostor)));
    assertThatThrownBy(() -> decode(wrong, object, "binlog.000007", ObjectEncoding.ZSTD_AES_GCM))
        .isInstanceOfSatisfying(
            ObjectDecodeException.class,
            e -> assertThat(e.kind()).isEqualTo(ObjectDecodeException.Kind.WRONG_KEY))
        .hasMessageContaining("key id " + key.id())
        .hasMessageContaining("is another key");
  }

  @Test
  void olderKeysDecryptAfterAKeyChange() throws Exception {
    byte[] data = bytes(10_000);
    byte[] object =
        encode(new ChunkCodec(ObjectEncoding.AES_GCM, SMALL_CHUNK, keys), data, "binlog.000001");
    ArchiveKey next = ArchiveKey.of(bytes(32), "next");
    ChunkCodec rotated =
        new ChunkCodec(ObjectEncoding.AES_GCM, SMALL_CHUNK, KeyRing.of(List.of(next, key)));

    assertThat(decode(rotated, object, "binlog.000001", ObjectEncoding.AES_GCM)).isEqualTo(data);
    try (EncodedObject encoded =
        rotated.encode(new ByteArrayInputStream(data), "binlog.000002", dir)) {
      assertThat(encoded.keyId()).isEqualTo("next");
      assertThat(encoded.userMetadata()).containsEntry("key-id", "next");
    }
  }

  @Test
  void swappedChunksAreRefusedNamingTheChunk() throws Exception {
    for (ObjectEncoding encoding : List.of(ObjectEncoding.AES_GCM, ObjectEncoding.ZSTD)) {
      ChunkCodec codec = new ChunkCodec(encoding, SMALL_CHUNK, keys);
      byte[] data = bytes(4 * SMALL_CHUNK); // random: every record has the same length
      try (EncodedObject encoded =
          codec.encode(new ByteArrayInputStream(data), "binlog.000003", dir)) {
        byte[] object = Files.readAllBytes(encoded.file());
        List<Long> at = encoded.chunkOffsets();
        int length = (int) (at.get(2) - at.get(1));
        byte[] swapped = object.clone();
        System.arraycopy(object, at.get(1).intValue(), swapped, at.get(2).intValue(), length);
        System.arraycopy(object, at.get(2).intValue(), swapped, at.get(1).intValue(), length);

        assertDamagedChunk(codec, swapped, "binlog.000003", encoding, 1);
      }
    }
  }

  @Test
  void aChunkFromAnotherFileIsRefusedEvenWithTheSameBytes() throws Exception {
    for (ObjectEncoding encoding : ENCODINGS.subList(1, 4)) {
      ChunkCodec codec = new ChunkCodec(encoding, SMALL_CHUNK, keys);
      byte[] data = bytes(3 * SMALL_CHUNK);
      try (EncodedObject a = codec.encode(new ByteArrayInputStream(data), "binlog.000001", dir);
          EncodedObject b = codec.encode(new ByteArrayInputStream(data), "binlog.000002", dir)) {
        byte[] objectA = Files.readAllBytes(a.file());
        byte[] objectB = Files.readAllBytes(b.file());
        int from = a.chunkOffsets().get(1).intValue();
        int to = a.chunkOffsets().get(2).intValue();
        assertThat(b.chunkOffsets()).isEqualTo(a.chunkOffsets());
        System.arraycopy(objectB, from, objectA, from, to - from);

        assertDamagedChunk(codec, objectA, "binlog.000001", encoding, 1);
        // and the whole object under another file's name
        assertThatThrownBy(() -> decode(codec, objectB, "binlog.000001", encoding))
            .isInstanceOf(ObjectDecodeException.class)
            .hasMessageContaining("chunk 0 ");
      }
    }
  }

  @Test
  void everyFlippedBitIsRefused() throws Exception {
    for (ObjectEncoding encoding : BOTH_SEALS) {
      ChunkCodec codec = new ChunkCodec(encoding, SMALL_CHUNK, keys);
      byte[] data =
          Arrays.copyOf(FixtureBinlogs.bytes(FixtureBinlogs.MYSQL, "binlog.000001"), 5000);
      byte[] object = encode(codec, data, "binlog.000001");
      for (int i = 0; i < object.length; i++) {
        byte[] damaged = object.clone();
        damaged[i] ^= (byte) (1 << (i % 8));
        String what = encoding + ", bit " + (i % 8) + " of byte " + i + " of " + object.length;
        assertThatThrownBy(() -> decode(codec, damaged, "binlog.000001", encoding))
            .as(what)
            .isInstanceOf(ObjectDecodeException.class);
        assertThatThrownBy(() -> rangedDecodeInMemory(codec, damaged, "binlog.000001", encoding))
            .as(what)
            .isInstanceOf(ObjectDecodeException.class);
      }
    }
  }

  @Test
  void aFlippedBitInAnIdentityObjectIsCaughtByItsSha256() throws Exception {
    ChunkCodec codec = ChunkCodec.forReading(keys);
    byte[] data = FixtureBinlogs.bytes(FixtureBinlogs.MARIADB, "mariadb-bin.000001");
    try (EncodedObject encoded = codec.encode(new ByteArrayInputStream(data), "f", dir)) {
      byte[] object = Files.readAllBytes(encoded.file());
      object[100] ^= 4;
      DecodedObject d =
          codec.decode(
              new ByteArrayInputStream(object),
              "mariadb-bin.000001",
              ObjectEncoding.IDENTITY,
              OutputStream.nullOutputStream());
      assertThatThrownBy(() -> d.check("mariadb-bin.000001", data.length, encoded.plainSha256Hex()))
          .isInstanceOfSatisfying(
              ObjectDecodeException.class,
              e -> assertThat(e.kind()).isEqualTo(ObjectDecodeException.Kind.DIGEST_MISMATCH))
          .hasMessageContaining("the archived copy of mariadb-bin.000001 is " + data.length)
          .hasMessageContaining(encoded.plainSha256Hex());
    }
  }

  @Test
  void everyTruncationIsRefused() throws Exception {
    for (ObjectEncoding encoding : BOTH_SEALS) {
      ChunkCodec codec = new ChunkCodec(encoding, SMALL_CHUNK, keys);
      byte[] object = encode(codec, bytes(2 * SMALL_CHUNK + 10), "binlog.000001");
      for (int cut = 0; cut < object.length; cut++) {
        byte[] truncated = Arrays.copyOf(object, cut);
        String what = encoding + " cut at " + cut + " of " + object.length;
        assertThatThrownBy(() -> decode(codec, truncated, "binlog.000001", encoding))
            .as(what)
            .isInstanceOfSatisfying(
                ObjectDecodeException.class,
                e -> assertThat(e.kind()).isEqualTo(ObjectDecodeException.Kind.TRUNCATED))
            .hasMessageContaining("is truncated: it ends at offset " + cut);
        assertThatThrownBy(() -> rangedDecodeInMemory(codec, truncated, "binlog.000001", encoding))
            .as(what)
            .isInstanceOf(ObjectDecodeException.class);
      }
      byte[] longer = Arrays.copyOf(object, object.length + 1);
      assertThatThrownBy(() -> decode(codec, longer, "binlog.000001", encoding))
          .isInstanceOfSatisfying(
              ObjectDecodeException.class,
              e -> assertThat(e.kind()).isEqualTo(ObjectDecodeException.Kind.TRAILING_BYTES));
    }
  }

  @Test
  void droppingTheLastChunksIsRefusedEvenWithTheIndexMovedUp() throws Exception {
    ChunkCodec codec = new ChunkCodec(ObjectEncoding.AES_GCM, SMALL_CHUNK, keys);
    try (EncodedObject encoded =
        codec.encode(new ByteArrayInputStream(bytes(3 * SMALL_CHUNK)), "binlog.000001", dir)) {
      byte[] object = Files.readAllBytes(encoded.file());
      int cut = encoded.chunkOffsets().get(2).intValue();
      int indexStart = object.length - (ObjectLayout.INDEX_FIXED + 3 * 8 + 28 + 8);
      ByteArrayOutputStream spliced = new ByteArrayOutputStream();
      spliced.write(object, 0, cut);
      spliced.write(object, indexStart, object.length - indexStart);

      assertThatThrownBy(
              () -> decode(codec, spliced.toByteArray(), "binlog.000001", ObjectEncoding.AES_GCM))
          .isInstanceOf(ObjectDecodeException.class)
          .hasMessageContaining("chunk 2");
      assertThatThrownBy(
              () ->
                  rangedDecode(
                      codec, spliced.toByteArray(), "binlog.000001", ObjectEncoding.AES_GCM))
          .isInstanceOf(ObjectDecodeException.class);
    }
  }

  @Test
  void anObjectWhoseEncodingDisagreesWithItsMetadataIsRefused() throws Exception {
    byte[] data = bytes(100);
    byte[] zstd = encode(new ChunkCodec(ObjectEncoding.ZSTD, SMALL_CHUNK, keys), data, "f");
    ChunkCodec reader = ChunkCodec.forReading(keys);
    assertThatThrownBy(() -> decode(reader, zstd, "f", ObjectEncoding.IDENTITY))
        .isInstanceOfSatisfying(
            ObjectDecodeException.class,
            e -> assertThat(e.kind()).isEqualTo(ObjectDecodeException.Kind.BAD_HEADER))
        .hasMessageContaining("in the chunk format (BRARCH1) but its metadata says identity");
    assertThatThrownBy(() -> decode(reader, zstd, "f", ObjectEncoding.ZSTD_AES_GCM))
        .hasMessageContaining("is encoded zstd but its metadata says zstd+aes-gcm");
    assertThatThrownBy(() -> decode(reader, data, "f", ObjectEncoding.ZSTD))
        .hasMessageContaining("does not start with the magic BRARCH1");
  }

  @Test
  void encodingsParseFromConfiguration() {
    assertThat(ObjectEncoding.parse("identity")).isEqualTo(ObjectEncoding.IDENTITY);
    assertThat(ObjectEncoding.parse(" ZSTD ")).isEqualTo(ObjectEncoding.ZSTD);
    assertThat(ObjectEncoding.parse("zstd:19")).isEqualTo(new ObjectEncoding(true, 19, false));
    assertThat(ObjectEncoding.parse("aes-gcm")).isEqualTo(ObjectEncoding.AES_GCM);
    assertThat(ObjectEncoding.parse("zstd:1+aes-gcm")).isEqualTo(new ObjectEncoding(true, 1, true));
    assertThat(ObjectEncoding.of("zstd:5", true).toString()).isEqualTo("zstd:5+aes-gcm");
    assertThat(ObjectEncoding.of("none", true)).isEqualTo(ObjectEncoding.AES_GCM);
    assertThat(ObjectEncoding.of(null, false)).isEqualTo(ObjectEncoding.IDENTITY);
    for (ObjectEncoding e : ENCODINGS) {
      assertThat(ObjectEncoding.ofName(e.name()).name()).isEqualTo(e.name());
      assertThat(ObjectEncoding.parse(e.toString())).isEqualTo(e);
    }
    for (String bad :
        List.of("", "gzip", "zstd:0", "zstd:23", "zstd:", "zstd:x", "identity+aes-gcm")) {
      assertThatThrownBy(() -> ObjectEncoding.parse(bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("unknown archive encoding '" + bad + "'");
    }
    assertThatThrownBy(() -> ObjectEncoding.of("lz4", false)).hasMessageContaining("'lz4'");
    assertThatThrownBy(() -> new ChunkCodec(ObjectEncoding.AES_GCM, SMALL_CHUNK, KeyRing.none()))
        .hasMessageContaining("no archive encryption key file is given");
    assertThatThrownBy(() -> new ChunkCodec(ObjectEncoding.ZSTD, 1000, keys))
        .hasMessageContaining("chunk size 1000 is out of range");
  }

  /** One measurement for the report; nothing is asserted about time. */
  @Test
  void throughputIsLogged() throws Exception {
    byte[] fixture = FixtureBinlogs.bytes(FixtureBinlogs.MYSQL, "binlog.000003");
    int size = 32 << 20;
    byte[] binlogLike = new byte[size];
    for (int p = 0; p < size; p += fixture.length) {
      System.arraycopy(fixture, 0, binlogLike, p, Math.min(fixture.length, size - p));
    }
    byte[] randomBytes = bytes(size);
    for (ObjectEncoding encoding : ENCODINGS.subList(1, 4)) {
      ChunkCodec codec = new ChunkCodec(encoding, ChunkCodec.DEFAULT_CHUNK_SIZE, keys);
      for (byte[] data : List.of(binlogLike, randomBytes)) {
        long t0 = System.nanoTime();
        EncodedObject encoded = codec.encode(new ByteArrayInputStream(data), "binlog.000001", dir);
        long t1 = System.nanoTime();
        DecodedObject decoded;
        try (InputStream in = Files.newInputStream(encoded.file())) {
          decoded = codec.decode(in, "binlog.000001", encoding, OutputStream.nullOutputStream());
        }
        long t2 = System.nanoTime();
        assertThat(decoded.sha256()).isEqualTo(sha256(data));
        LOG.info(
            "codec throughput: {} of {} MiB {} (object {}% of the input, 4 MiB chunks, temp file"
                + " on {}): encode {} MB/s, decode {} MB/s",
            encoding,
            size >> 20,
            data == binlogLike ? "repeated fixture binlog.000003" : "random bytes",
            100L * encoded.length() / size,
            dir,
            size * 1000L / Math.max(1, t1 - t0),
            size * 1000L / Math.max(1, t2 - t1));
        encoded.close();
      }
    }
  }

  private void checkEncoded(
      EncodedObject encoded, byte[] object, byte[] plain, ObjectEncoding encoding)
      throws Exception {
    assertThat(encoded.length()).isEqualTo(object.length);
    assertThat(encoded.md5()).isEqualTo(MessageDigest.getInstance("MD5").digest(object));
    assertThat(encoded.plainLength()).isEqualTo(plain.length);
    assertThat(encoded.plainSha256()).isEqualTo(sha256(plain));
    assertThat(encoded.encoding()).isEqualTo(encoding);
    assertThat(encoded.userMetadata())
        .containsEntry("sha256", HexFormat.of().formatHex(sha256(plain)))
        .containsEntry("size", Long.toString(plain.length))
        .containsEntry("encoding", encoding.name());
    assertThat(encoded.keyId()).isEqualTo(encoding.encrypted() ? key.id() : "");
    assertThat(Files.getPosixFilePermissions(encoded.file()))
        .containsExactlyInAnyOrderElementsOf(
            java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
  }

  private void assertDamagedChunk(
      ChunkCodec codec, byte[] object, String name, ObjectEncoding encoding, int chunk) {
    for (boolean ranged : List.of(false, true)) {
      assertThatThrownBy(
              () -> {
                if (ranged) {
                  rangedDecode(codec, object, name, encoding);
                } else {
                  decode(codec, object, name, encoding);
                }
              })
          .as("%s, ranged %s", encoding, ranged)
          .isInstanceOfSatisfying(
              ObjectDecodeException.class,
              e -> assertThat(e.kind()).isEqualTo(ObjectDecodeException.Kind.DAMAGED_CHUNK))
          .hasMessageContaining("chunk " + chunk + " (object offset ")
          .hasMessageContaining("of the archived object of " + name)
          .hasMessageContaining("moved from another place or another file");
    }
  }

  private byte[] encode(ChunkCodec codec, byte[] data, String name) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    DecodedObject plain = codec.encode(new ByteArrayInputStream(data), name, out);
    assertThat(plain.plainLength()).isEqualTo(data.length);
    return out.toByteArray();
  }

  private static byte[] decode(ChunkCodec codec, byte[] object, String name, ObjectEncoding e)
      throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    DecodedObject d = codec.decode(new ByteArrayInputStream(object), name, e, out);
    byte[] plain = out.toByteArray();
    assertThat(d.plainLength()).isEqualTo(plain.length);
    assertThat(d.sha256()).isEqualTo(sha256(plain));
    return plain;
  }

  /**
   * Opens by ranges and fetches the chunks on four threads, last first, into a file; throws the
   * failure of the first failing chunk in file order.
   */
  private byte[] rangedDecode(ChunkCodec codec, byte[] object, String name, ObjectEncoding e)
      throws Exception {
    ChunkedObject chunked =
        codec.open(
            (offset, length) -> new ByteArrayInputStream(object, (int) offset, (int) length),
            object.length,
            name,
            e);
    Path out = Files.createTempFile(dir, name, ".ranged");
    try (FileChannel channel = FileChannel.open(out, StandardOpenOption.WRITE)) {
      List<Future<?>> reads = new ArrayList<>(Collections.nCopies(chunked.chunkCount(), null));
      for (int i = chunked.chunkCount() - 1; i >= 0; i--) {
        int chunk = i;
        reads.set(
            i,
            pool.submit(
                () -> {
                  chunked.readChunk(chunk, channel);
                  return null;
                }));
      }
      for (Future<?> f : reads) { // the first failing chunk in file order
        try {
          f.get();
        } catch (java.util.concurrent.ExecutionException x) {
          throw (Exception) x.getCause();
        }
      }
    }
    byte[] plain = Files.readAllBytes(out);
    Files.delete(out);
    assertThat(plain.length).isEqualTo(chunked.plainLength());
    assertThat(sha256(plain)).isEqualTo(chunked.sha256());
    return plain;
  }

  /** Opens by ranges and reads the chunks one after the other into memory. */
  private byte[] rangedDecodeInMemory(
      ChunkCodec codec, byte[] object, String name, ObjectEncoding e) throws IOException {
    ChunkedObject chunked =
        codec.open(
            (offset, length) -> new ByteArrayInputStream(object, (int) offset, (int) length),
            object.length,
            name,
            e);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < chunked.chunkCount(); i++) {
      out.write(chunked.chunk(i));
    }
    return out.toByteArray();
  }

  @AfterEach
  void stopPool() {
    pool.shutdownNow();
  }

  private byte[] bytes(int n) {
    byte[] b = new byte[n];
    random.nextBytes(b);
    return b;
  }

  private static byte[] sha256(byte[] b) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(b);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
