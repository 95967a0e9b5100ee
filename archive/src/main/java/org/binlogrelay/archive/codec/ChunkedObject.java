package org.binlogrelay.archive.codec;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.Arrays;

/**
 * An object in the chunk format read by ranges: {@link #open} reads and checks its header and index
 * (two small reads), then {@link #chunk} fetches, checks and returns any chunk on its own, from any
 * thread, so a reader fetches chunks in parallel and writes each at its {@link #plainOffset}. Each
 * chunk is bound to its index and file and the index to the whole object, so the chunks, put
 * together, are the file's bytes; their SHA-256 is {@link #sha256()}. Immutable after {@link
 * #open}; thread-safe ({@link #chunk} uses its own buffers per call).
 */
public final class ChunkedObject {
  /** Reads a byte range of the object (e.g. a ranged GET). */
  @FunctionalInterface
  public interface Ranges {
    /** An exact range; the caller closes the stream. */
    InputStream open(long offset, long length) throws IOException;
  }

  private final Ranges ranges;
  private final ObjectLayout layout;
  private final ArchiveKey key;
  private final ChunkIndex index;

  private ChunkedObject(Ranges ranges, ObjectLayout layout, ArchiveKey key, ChunkIndex index) {
    this.ranges = ranges;
    this.layout = layout;
    this.key = key;
    this.index = index;
  }

  /**
   * Reads and checks the header and index of an object.
   *
   * @param size the object's length (from HEAD or the metadata object)
   * @param file the binlog file's name (part of what each chunk is bound to)
   * @param expected the encoding the metadata names, or {@code null}
   */
  static ChunkedObject open(
      Ranges ranges, long size, String file, KeyRing keys, ObjectEncoding expected)
      throws IOException {
    int minimum = ObjectHeader.FIXED + ObjectLayout.INDEX_FIXED + ObjectLayout.TAIL;
    if (size < minimum) {
      throw truncated(file, size, "shorter than the smallest object (" + minimum + " bytes)");
    }
    byte[] head = read(ranges, 0, (int) Math.min(size, ObjectHeader.MAX_LENGTH), file, size);
    int headerLength = ObjectHeader.length(Arrays.copyOf(head, ObjectHeader.FIXED), file);
    if (headerLength > head.length) {
      throw truncated(file, size, "inside its header");
    }
    ObjectHeader header = ObjectHeader.parse(Arrays.copyOf(head, headerLength), file);
    if (expected != null
        && (expected.compressed() != header.encoding().compressed()
            || expected.encrypted() != header.encoding().encrypted())) {
      throw new ObjectDecodeException(
          ObjectDecodeException.Kind.BAD_HEADER,
          "the archived object of "
              + file
              + " is encoded "
              + header.encoding().name()
              + " but its metadata says "
              + expected.name());
    }
    ArchiveKey key = header.key(keys, file);
    ChunkSeal seal = ChunkSeal.of(key);
    ObjectLayout layout = new ObjectLayout(header, file, seal);
    byte[] tail = read(ranges, size - ObjectLayout.TAIL, ObjectLayout.TAIL, file, size);
    if (!Arrays.equals(tail, 4, 8, ObjectLayout.END_MAGIC, 0, 4)) {
      throw truncated(file, size, "without its end (BREN): cut or damaged");
    }
    int indexLength = ByteBuffer.wrap(tail).getInt();
    long indexOffset = size - ObjectLayout.TAIL - indexLength;
    if (indexLength < layout.indexLength(1)
        || indexOffset < headerLength + ObjectLayout.RECORD_HEADER + seal.sealedLength(0)) {
      throw ChunkIndex.damaged(layout, "its length " + indexLength + " does not fit the object");
    }
    byte[] bytes = read(ranges, indexOffset, indexLength + ObjectLayout.TAIL, file, size);
    ChunkIndex index = ChunkIndex.parse(bytes, indexOffset, layout, seal);
    return new ChunkedObject(ranges, layout, key, index);
  }

  public int chunkCount() {
    return index.count();
  }

  public int chunkSize() {
    return layout.header().chunkSize();
  }

  /** The binlog file's length. */
  public long plainLength() {
    return index.plainLength();
  }

  /** The SHA-256 of the binlog file, as recorded in the (checked) index. */
  public byte[] sha256() {
    return index.sha256().clone();
  }

  /** The key id the object is encrypted with, empty if not encrypted. */
  public String keyId() {
    return layout.header().keyId();
  }

  /** Where chunk {@code i}'s plaintext goes in the file. */
  public long plainOffset(int i) {
    return (long) i * chunkSize();
  }

  /** The plaintext of chunk {@code i}, fetched by one range read and checked. */
  public byte[] chunk(int i) throws IOException {
    if (i < 0 || i >= index.count()) {
      throw new IndexOutOfBoundsException("chunk " + i + " of " + index.count());
    }
    long offset = index.offsets()[i];
    long length = index.end(i) - offset;
    ChunkOpener opener = new ChunkOpener(layout, ChunkSeal.of(key));
    if (length < ObjectLayout.RECORD_HEADER
        || length > ObjectLayout.RECORD_HEADER + layout.maxPayload()) {
      throw opener.damaged(i, offset, "its record length " + length + " is out of range");
    }
    byte[] header = new byte[ObjectLayout.RECORD_HEADER];
    ChunkOpener.ChunkRecord r;
    try (InputStream in = ranges.open(offset, length)) {
      if (in.readNBytes(header, 0, header.length) != header.length) {
        throw truncated(layout.file(), -1, "chunk " + i + " at " + offset + " is cut short");
      }
      r = opener.record(header, i, offset);
      boolean last = i == index.count() - 1;
      long expectedPlain = last ? index.plainLength() - plainOffset(i) : chunkSize();
      if (ObjectLayout.RECORD_HEADER + r.payloadLength() != length
          || r.last() != last
          || r.plainLength() != expectedPlain) {
        throw opener.damaged(i, offset, "its record does not fit the index");
      }
      if (in.readNBytes(opener.payload(), 0, r.payloadLength()) != r.payloadLength()) {
        throw truncated(layout.file(), -1, "chunk " + i + " at " + offset + " is cut short");
      }
    }
    return Arrays.copyOf(opener.open(r, i, offset), r.plainLength());
  }

  /** Fetches chunk {@code i} and writes it at its place in {@code out} (positional write). */
  public void readChunk(int i, FileChannel out) throws IOException {
    ByteBuffer b = ByteBuffer.wrap(chunk(i));
    long position = plainOffset(i);
    while (b.hasRemaining()) {
      position += out.write(b, position);
    }
  }

  private static byte[] read(Ranges ranges, long offset, int length, String file, long size)
      throws IOException {
    byte[] b;
    try (InputStream in = ranges.open(offset, length)) {
      b = in.readNBytes(length);
    }
    if (b.length != length) {
      throw truncated(
          file, size, "a read of " + length + " bytes at " + offset + " got " + b.length);
    }
    return b;
  }

  private static ObjectDecodeException truncated(String file, long size, String what) {
    return new ObjectDecodeException(
        ObjectDecodeException.Kind.TRUNCATED,
        "the archived object of "
            + file
            + (size >= 0 ? " (" + size + " bytes)" : "")
            + " is truncated: "
            + what);
  }
}
