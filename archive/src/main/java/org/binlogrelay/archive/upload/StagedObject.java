package org.binlogrelay.archive.upload;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import org.binlogrelay.archive.codec.ChunkCodec;
import org.binlogrelay.archive.codec.EncodedObject;
import org.binlogrelay.archive.codec.ObjectEncoding;
import org.binlogrelay.archive.upload.KeyValueText.DamagedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A closed binlog file encoded into its archived object's bytes (zstd and/or AES-GCM, {@link
 * ChunkCodec}), staged on local disk until its upload is VERIFIED: {@code
 * <data-dir>/archive/staging/<name>.object} and a sidecar {@code <name>.info} that says what the
 * object holds (encoding, key id, chunk size and offsets, the object's length, the file's length
 * and SHA-256).
 *
 * <p>Why staged: the object's length and MD5 must be known before its first byte is sent, and
 * encoding is not repeatable (every encrypted chunk has a random nonce), so an upload that resumes
 * after a restart must send the very bytes it started with, which a multipart upload's kept parts
 * and a completed object's ETag were computed from. The object is written to a temporary file,
 * forced, renamed into place, and only then is the sidecar written (atomically): an object without
 * a sidecar is a crash during staging, from which nothing was uploaded, and is deleted and encoded
 * again. The uploader deletes both files once the upload is VERIFIED ({@link #delete}) and prunes
 * those of files no longer pending ({@link #prune}). Files are {@code rw-------} in the archive's
 * owner-only directory.
 *
 * <p>Immutable; the static methods are safe from any thread for distinct names (the uploader's
 * thread is the only writer).
 *
 * @param file the staged object's bytes
 * @param encoding how they encode the binlog file ({@link ObjectEncoding#name()})
 * @param keyId the encrypting key's id, empty if not encrypted
 * @param chunkSize plaintext bytes per chunk
 * @param objectSize the staged object's length
 * @param plainSize the binlog file's length
 * @param plainSha256 the binlog file's SHA-256, hex
 * @param chunkOffsets the object offset of each chunk
 */
record StagedObject(
    Path file,
    String encoding,
    String keyId,
    int chunkSize,
    long objectSize,
    long plainSize,
    String plainSha256,
    List<Long> chunkOffsets) {

  private static final Logger LOG = LoggerFactory.getLogger(StagedObject.class);
  private static final String HEADER = "binlog-relay-staged 1";
  private static final String OBJECT_SUFFIX = ".object";
  private static final String INFO_SUFFIX = ".info";
  private static final String TEMP_SUFFIX = ".tmp";

  StagedObject {
    chunkOffsets = List.copyOf(chunkOffsets);
  }

  /** {@code <data-dir>/archive/staging}. */
  static Path directory(Path dataDir) {
    return dataDir.resolve("archive").resolve("staging");
  }

  /** The encoding these bytes are in. */
  ObjectEncoding objectEncoding() {
    return ObjectEncoding.ofName(encoding);
  }

  /**
   * The staged object of {@code name}, if a complete one is in {@code dir}; an incomplete one
   * (object without sidecar, sidecar without object, damaged sidecar, another length) is deleted.
   */
  static Optional<StagedObject> load(Path dir, String name) throws IOException {
    Path object = dir.resolve(name + OBJECT_SUFFIX);
    Path info = dir.resolve(name + INFO_SUFFIX);
    byte[] content;
    try {
      content = Files.readAllBytes(info);
    } catch (NoSuchFileException e) {
      if (Files.deleteIfExists(object)) {
        LOG.info("archive: {} was staged incompletely (no {}): encoding it again", object, info);
      }
      return Optional.empty();
    }
    try {
      Map<String, String> f = KeyValueText.decode(content, HEADER, info.toString());
      String where = info.toString();
      if (!name.equals(KeyValueText.field(f, "name", where))) {
        throw new DamagedException(where + ": describes another file");
      }
      List<Long> offsets = new ArrayList<>();
      for (String o : KeyValueText.field(f, "chunks", where).split(",", -1)) {
        offsets.add(Long.parseLong(o));
      }
      StagedObject staged =
          new StagedObject(
              object,
              ObjectEncoding.ofName(KeyValueText.field(f, "encoding", where)).name(),
              KeyValueText.field(f, "key_id", where),
              (int) KeyValueText.longField(f, "chunk_size", where),
              KeyValueText.longField(f, "object_size", where),
              KeyValueText.longField(f, "size", where),
              KeyValueText.field(f, "sha256", where),
              offsets);
      if (!Files.isRegularFile(object) || Files.size(object) != staged.objectSize()) {
        throw new DamagedException(
            object + " is missing or not " + staged.objectSize() + " bytes long");
      }
      return Optional.of(staged);
    } catch (DamagedException | IllegalArgumentException e) {
      LOG.warn("archive: discarding the staged object of {}: {}", name, e.getMessage());
      delete(dir, name);
      return Optional.empty();
    }
  }

  /**
   * Encodes {@code plain} (the binlog file {@code name}'s bytes, to their end) with {@code codec}
   * and stages the result in {@code dir}.
   *
   * @param plainSha256 the file's SHA-256 as digested before (hex); the encoded bytes must be of
   *     the same bytes
   */
  static StagedObject create(
      ChunkCodec codec, InputStream plain, String name, String plainSha256, Path dir)
      throws IOException {
    delete(dir, name);
    try (EncodedObject encoded = codec.encode(plain, name, dir)) {
      if (!encoded.plainSha256Hex().equals(plainSha256)) {
        throw new IOException(
            name
                + " changed while it was encoded for the archive (SHA-256 "
                + encoded.plainSha256Hex()
                + ", digested before as "
                + plainSha256
                + ")");
      }
      try (FileChannel c = FileChannel.open(encoded.file(), StandardOpenOption.WRITE)) {
        c.force(true);
      }
      Path object = dir.resolve(name + OBJECT_SUFFIX);
      Files.move(encoded.file(), object, StandardCopyOption.ATOMIC_MOVE);
      StagedObject staged =
          new StagedObject(
              object,
              encoded.encoding().name(),
              encoded.keyId(),
              encoded.chunkSize(),
              encoded.length(),
              encoded.plainLength(),
              encoded.plainSha256Hex(),
              encoded.chunkOffsets());
      staged.writeInfo(dir, name);
      return staged;
    }
  }

  private void writeInfo(Path dir, String name) throws IOException {
    Map<String, String> f = new LinkedHashMap<>();
    f.put("name", name);
    f.put("encoding", encoding);
    f.put("key_id", keyId);
    f.put("chunk_size", Integer.toString(chunkSize));
    f.put("object_size", Long.toString(objectSize));
    f.put("size", Long.toString(plainSize));
    f.put("sha256", plainSha256);
    List<String> offsets = new ArrayList<>();
    for (long o : chunkOffsets) {
      offsets.add(Long.toString(o));
    }
    f.put("chunks", String.join(",", offsets));
    Path temp = dir.resolve(name + INFO_SUFFIX + TEMP_SUFFIX);
    try (FileChannel out =
        FileChannel.open(
            temp,
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
      ByteBuffer b = ByteBuffer.wrap(KeyValueText.encode(HEADER, f));
      while (b.hasRemaining()) {
        out.write(b);
      }
      out.force(true);
    }
    Files.move(
        temp,
        dir.resolve(name + INFO_SUFFIX),
        StandardCopyOption.ATOMIC_MOVE,
        StandardCopyOption.REPLACE_EXISTING);
    UploadState.forceDirectory(dir);
  }

  /** Deletes the staged object of {@code name} and its sidecar, if any. */
  static void delete(Path dir, String name) throws IOException {
    boolean deleted = Files.deleteIfExists(dir.resolve(name + INFO_SUFFIX));
    deleted |= Files.deleteIfExists(dir.resolve(name + OBJECT_SUFFIX));
    if (deleted) {
      UploadState.forceDirectory(dir);
    }
  }

  /** Deletes the staged objects of the files {@code keep} refuses, and leftover temporary files. */
  static void prune(Path dir, Predicate<String> keep) throws IOException {
    if (!Files.isDirectory(dir)) {
      return;
    }
    List<Path> entries = new ArrayList<>();
    try (DirectoryStream<Path> list = Files.newDirectoryStream(dir)) {
      list.forEach(entries::add);
    }
    for (Path p : entries) {
      String file = p.getFileName().toString();
      String name = nameOf(file);
      if (name == null || !keep.test(name)) {
        Files.deleteIfExists(p);
      }
    }
  }

  /** The bytes staged in {@code dir} (for the archive's disk accounting). */
  static long bytes(Path dir) {
    if (!Files.isDirectory(dir)) {
      return 0;
    }
    long total = 0;
    try (DirectoryStream<Path> list = Files.newDirectoryStream(dir)) {
      for (Path p : list) {
        try {
          total += Files.size(p);
        } catch (IOException e) {
          // deleted meanwhile
        }
      }
    } catch (IOException e) {
      LOG.debug("archive: cannot list {}: {}", dir, e.getMessage());
    }
    return total;
  }

  /** The binlog file a staging entry belongs to, {@code null} for a temporary file. */
  private static String nameOf(String file) {
    for (String suffix : new String[] {OBJECT_SUFFIX, INFO_SUFFIX}) {
      if (file.endsWith(suffix)) {
        return file.substring(0, file.length() - suffix.length());
      }
    }
    return null;
  }
}
