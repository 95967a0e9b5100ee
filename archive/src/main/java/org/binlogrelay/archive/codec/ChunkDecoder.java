package org.binlogrelay.archive.codec;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.security.MessageDigest;
import java.util.Arrays;

/**
 * Reads one object in the chunk format from a stream and writes the file's bytes, checking
 * everything on the way: the header and key, each chunk before any of its bytes are written, then
 * the index against what was read, then that nothing follows. A small state machine: {@link
 * State#HEADER} → {@link State#CHUNK} (until the chunk with the last flag) → {@link State#INDEX} →
 * {@link State#DONE}. Every length read is checked against the header's limits before a buffer is
 * filled. For one object, then thrown away; not thread-safe.
 */
final class ChunkDecoder {
  /** Where the decoder is in the object. */
  enum State {
    HEADER,
    CHUNK,
    INDEX,
    DONE
  }

  private final String file;
  private final KeyRing keys;
  private final ObjectEncoding expected;
  private State state = State.HEADER;
  private long position;

  /**
   * @param expected the encoding the object's metadata names, or {@code null} to accept the
   *     header's
   */
  ChunkDecoder(String file, KeyRing keys, ObjectEncoding expected) {
    this.file = file;
    this.keys = keys;
    this.expected = expected;
  }

  /**
   * Decodes the object read from {@code in} into {@code out}.
   *
   * @param plainSha256 a fresh digest, updated with the plaintext
   * @return the plaintext's length and SHA-256 (equal to those in the object's index)
   */
  DecodedObject decode(InputStream in, OutputStream out, MessageDigest plainSha256)
      throws IOException {
    ObjectHeader header = readHeader(in);
    ArchiveKey key = header.key(keys, file);
    ChunkSeal seal = ChunkSeal.of(key);
    ObjectLayout layout = new ObjectLayout(header, file, seal);
    ChunkOpener opener = new ChunkOpener(layout, seal);
    byte[] recordHeader = new byte[ObjectLayout.RECORD_HEADER];
    long[] offsets = new long[16];
    int count = 0;
    long plainLength = 0;
    state = State.CHUNK;
    while (state == State.CHUNK) {
      long offset = position;
      read(in, recordHeader, recordHeader.length, count);
      ChunkOpener.ChunkRecord record = opener.record(recordHeader, count, offset);
      read(in, opener.payload(), record.payloadLength(), count);
      byte[] plain = opener.open(record, count, offset);
      out.write(plain, 0, record.plainLength());
      plainSha256.update(plain, 0, record.plainLength());
      plainLength += record.plainLength();
      if (count == offsets.length) {
        offsets = Arrays.copyOf(offsets, count * 2);
      }
      offsets[count++] = offset;
      if (record.last()) {
        state = State.INDEX;
      } else if (count == ObjectLayout.MAX_CHUNKS) {
        throw opener.damaged(count, position, "more than " + ObjectLayout.MAX_CHUNKS + " chunks");
      }
    }
    long indexOffset = position;
    byte[] fixed = new byte[ObjectLayout.INDEX_FIXED];
    read(in, fixed, fixed.length, count);
    int declared = ChunkIndex.count(fixed, layout);
    if (declared != count) {
      throw ChunkIndex.damaged(layout, "it lists " + declared + " chunks, the object has " + count);
    }
    byte[] bytes = Arrays.copyOf(fixed, layout.indexLength(count) + ObjectLayout.TAIL);
    read(in, bytes, fixed.length, bytes.length - fixed.length, count);
    ChunkIndex index = ChunkIndex.parse(bytes, indexOffset, layout, seal);
    byte[] sha = plainSha256.digest();
    if (!index.matches(plainLength, sha, Arrays.copyOf(offsets, count))) {
      throw ChunkIndex.damaged(layout, "it disagrees with the chunks (length, SHA-256 or offsets)");
    }
    if (in.read() >= 0) {
      throw new ObjectDecodeException(
          ObjectDecodeException.Kind.TRAILING_BYTES,
          "the archived object of " + file + " has bytes after its end at offset " + position);
    }
    state = State.DONE;
    return new DecodedObject(plainLength, sha);
  }

  private ObjectHeader readHeader(InputStream in) throws IOException {
    byte[] fixed = new byte[ObjectHeader.FIXED];
    read(in, fixed, fixed.length, 0);
    byte[] header = Arrays.copyOf(fixed, ObjectHeader.length(fixed, file));
    read(in, header, fixed.length, header.length - fixed.length, 0);
    ObjectHeader h = ObjectHeader.parse(header, file);
    if (expected != null
        && (expected.compressed() != h.encoding().compressed()
            || expected.encrypted() != h.encoding().encrypted())) {
      throw new ObjectDecodeException(
          ObjectDecodeException.Kind.BAD_HEADER,
          "the archived object of "
              + file
              + " is encoded "
              + h.encoding().name()
              + " but its metadata says "
              + expected.name());
    }
    return h;
  }

  private void read(InputStream in, byte[] b, int length, int chunk) throws IOException {
    read(in, b, 0, length, chunk);
  }

  private void read(InputStream in, byte[] b, int off, int length, int chunk) throws IOException {
    int n = in.readNBytes(b, off, length);
    position += n;
    if (n < length) {
      String where =
          switch (state) {
            case HEADER -> "inside its header";
            case CHUNK -> "inside chunk " + chunk;
            case INDEX -> "inside its chunk index, after " + chunk + " chunks";
            case DONE -> "after its end";
          };
      throw new ObjectDecodeException(
          ObjectDecodeException.Kind.TRUNCATED,
          "the archived object of "
              + file
              + " is truncated: it ends at offset "
              + position
              + ", "
              + where);
    }
  }
}
