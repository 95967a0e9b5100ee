package org.binlogrelay.archive.codec;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.DigestOutputStream;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Turns a binlog file into its archived object's bytes and back, in the configured {@link
 * ObjectEncoding}: {@code identity} (the file's bytes exactly) or the chunk format ({@link
 * ObjectHeader}, {@link ObjectLayout}: chunks of {@link #chunkSize()} bytes of plaintext, each
 * zstd-compressed and/or AES-256-GCM-sealed on its own, then an index of chunk offsets). Streams:
 * memory is a few buffers of the chunk size, whatever the file's size.
 *
 * <p>Encoding writes to a temporary file, because an uploader must know the object's length and MD5
 * before it sends a byte ({@link EncodedObject}). Decoding reads a stream ({@link #decode}) or
 * ranges ({@link #open}) and checks everything: it fails with an {@link ObjectDecodeException}
 * naming the key id, the chunk or the point of truncation, and never returns wrong bytes as good
 * ones (bytes already written when it fails must be discarded; chunks are checked before they are
 * written). An identity object has nothing to check but its SHA-256: give the expected one to
 * {@link DecodedObject#check}. Immutable; thread-safe (each call has its own state).
 */
public final class ChunkCodec {
  /** Plaintext bytes per chunk unless configured otherwise: 4 MiB. */
  public static final int DEFAULT_CHUNK_SIZE = 4 << 20;

  private static final int COPY_BUFFER = 1 << 16;

  private final ObjectEncoding encoding;
  private final int chunkSize;
  private final KeyRing keys;

  /**
   * @param encoding how new objects are encoded
   * @param chunkSize plaintext bytes per chunk (4 KiB to 64 MiB)
   * @param keys the key to encrypt with (required if {@code encoding} encrypts) and the keys to
   *     decrypt with
   * @throws IllegalArgumentException if the chunk size is out of range or no encryption key is
   *     configured for an encrypting encoding
   */
  public ChunkCodec(ObjectEncoding encoding, int chunkSize, KeyRing keys) {
    ObjectHeader.checkChunkSize(chunkSize);
    if (encoding.encrypted() && keys.encryptionKey().isEmpty()) {
      throw new IllegalArgumentException(
          "archive encoding "
              + encoding
              + " encrypts, but no archive encryption key file is given");
    }
    this.encoding = encoding;
    this.chunkSize = chunkSize;
    this.keys = keys;
  }

  /** A codec for reading only (and for writing identity objects). */
  public static ChunkCodec forReading(KeyRing keys) {
    return new ChunkCodec(ObjectEncoding.IDENTITY, DEFAULT_CHUNK_SIZE, keys);
  }

  public ObjectEncoding encoding() {
    return encoding;
  }

  public int chunkSize() {
    return chunkSize;
  }

  /** The id of the key new objects are encrypted with, empty if they are not encrypted. */
  public String keyId() {
    return encoding.encrypted() ? keys.encryptionKey().orElseThrow().id() : "";
  }

  /** The keys this codec encrypts and decrypts with. */
  public KeyRing keys() {
    return keys;
  }

  /** How new objects are encoded, for logs and status: e.g. {@code zstd:3+aes-gcm (key id ...)}. */
  @Override
  public String toString() {
    return encoding + (encoding.encrypted() ? " (key id " + keyId() + ")" : "");
  }

  /**
   * Encodes the binlog file {@code binlog} (its whole length; a closed file) into a new temporary
   * file in {@code tempDir}, readable by its owner only.
   */
  public EncodedObject encode(Path binlog, Path tempDir) throws IOException {
    try (InputStream in = Files.newInputStream(binlog)) {
      return encode(in, binlog.getFileName().toString(), tempDir);
    }
  }

  /** Encodes {@code channel} from its current position to its end, as the file {@code name}. */
  public EncodedObject encode(FileChannel channel, String name, Path tempDir) throws IOException {
    return encode(Channels.newInputStream(channel), name, tempDir);
  }

  /**
   * Encodes the bytes of {@code in} (up to its end) as the binlog file {@code name} into a new
   * temporary file in {@code tempDir}; the caller closes {@code in} and, when done, the result
   * (which deletes the temporary file). A failure deletes the temporary file.
   */
  public EncodedObject encode(InputStream in, String name, Path tempDir) throws IOException {
    Path tmp =
        Files.createTempFile(
            tempDir,
            name + ".",
            ".encoding",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    boolean done = false;
    try {
      MessageDigest md5 = digest("MD5");
      MessageDigest sha = digest("SHA-256");
      EncodedObject result;
      try (OutputStream file = Files.newOutputStream(tmp, StandardOpenOption.WRITE);
          DigestOutputStream out =
              new DigestOutputStream(new BufferedOutputStream(file, COPY_BUFFER), md5)) {
        result = encode(in, name, out, sha, tmp, md5);
      }
      done = true;
      return result;
    } finally {
      if (!done) {
        Files.deleteIfExists(tmp);
      }
    }
  }

  private EncodedObject encode(
      InputStream in, String name, OutputStream out, MessageDigest sha, Path tmp, MessageDigest md5)
      throws IOException {
    if (encoding.identity()) {
      long length = copy(in, out, sha);
      out.flush();
      return new EncodedObject(
          tmp, encoding, "", 0, length, md5.digest(), length, sha.digest(), List.of());
    }
    ArchiveKey key = encoding.encrypted() ? keys.encryptionKey().orElseThrow() : null;
    ChunkEncoder encoder = new ChunkEncoder(encoding, chunkSize, key, name);
    ChunkIndex index = encoder.encode(in, out, sha);
    out.flush();
    List<Long> offsets = new ArrayList<>(index.count());
    for (long o : index.offsets()) {
      offsets.add(o);
    }
    long length = index.indexOffset() + encoder.layout().indexLength(index.count()) + 8;
    return new EncodedObject(
        tmp,
        encoding,
        key == null ? "" : key.id(),
        chunkSize,
        length,
        md5.digest(),
        index.plainLength(),
        index.sha256(),
        offsets);
  }

  /**
   * Encodes to a stream instead of a file (the caller learns the length and MD5 afterwards only).
   *
   * @return the SHA-256 and length of the plaintext
   */
  public DecodedObject encode(InputStream in, String name, OutputStream out) throws IOException {
    MessageDigest sha = digest("SHA-256");
    if (encoding.identity()) {
      long length = copy(in, out, sha);
      return new DecodedObject(length, sha.digest());
    }
    ArchiveKey key = encoding.encrypted() ? keys.encryptionKey().orElseThrow() : null;
    ChunkIndex index = new ChunkEncoder(encoding, chunkSize, key, name).encode(in, out, sha);
    return new DecodedObject(index.plainLength(), index.sha256());
  }

  /**
   * Decodes an object read from {@code object} (to its end) into the bytes of the binlog file
   * {@code name}, written to {@code out}.
   *
   * @param expected the encoding the object's metadata names (an object whose header says another
   *     is refused)
   * @return the file's length and SHA-256 (check them against the metadata object's with {@link
   *     DecodedObject#check})
   * @throws ObjectDecodeException if the object is damaged, truncated, not of this file or
   *     encrypted with a key this codec does not have
   */
  public DecodedObject decode(
      InputStream object, String name, ObjectEncoding expected, OutputStream out)
      throws IOException {
    MessageDigest sha = digest("SHA-256");
    if (!expected.identity()) {
      return new ChunkDecoder(name, keys, expected).decode(object, out, sha);
    }
    byte[] start = object.readNBytes(ObjectHeader.MAGIC.length);
    if (Arrays.equals(start, ObjectHeader.MAGIC)) {
      throw new ObjectDecodeException(
          ObjectDecodeException.Kind.BAD_HEADER,
          "the archived object of "
              + name
              + " is in the chunk format (BRARCH1) but its metadata says identity");
    }
    out.write(start);
    sha.update(start);
    return new DecodedObject(start.length + copy(object, out, sha), sha.digest());
  }

  /**
   * Decodes into {@code out} from its current position (see {@link #decode(InputStream, String,
   * ObjectEncoding, OutputStream)}).
   */
  public DecodedObject decode(
      InputStream object, String name, ObjectEncoding expected, FileChannel out)
      throws IOException {
    OutputStream stream = new BufferedOutputStream(Channels.newOutputStream(out), COPY_BUFFER);
    DecodedObject result = decode(object, name, expected, stream);
    stream.flush();
    return result;
  }

  /**
   * Opens an object in the chunk format for ranged, parallel chunk reads (an identity object is
   * read by plain ranges instead).
   *
   * @param size the object's length
   */
  public ChunkedObject open(
      ChunkedObject.Ranges ranges, long size, String name, ObjectEncoding expected)
      throws IOException {
    if (expected.identity()) {
      throw new IllegalArgumentException(name + " is archived as identity: read it by ranges");
    }
    return ChunkedObject.open(ranges, size, name, keys, expected);
  }

  private static long copy(InputStream in, OutputStream out, MessageDigest sha) throws IOException {
    byte[] buffer = new byte[COPY_BUFFER];
    long total = 0;
    int n;
    while ((n = in.read(buffer)) >= 0) {
      out.write(buffer, 0, n);
      sha.update(buffer, 0, n);
      total += n;
    }
    return total;
  }

  private static MessageDigest digest(String algorithm) {
    try {
      return MessageDigest.getInstance(algorithm);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("the JDK has no " + algorithm, e);
    }
  }
}
