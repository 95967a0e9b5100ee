package org.binlogrelay.archive.codec;

import com.github.luben.zstd.Zstd;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.Arrays;

/**
 * Writes one file's object in the chunk format ({@link ObjectHeader}, {@link ObjectLayout}) from a
 * stream of its bytes, one chunk at a time: memory is a few buffers of the chunk size, whatever the
 * file's size. For one object, then thrown away; not thread-safe.
 */
final class ChunkEncoder {
  private final ObjectEncoding encoding;
  private final ObjectLayout layout;
  private final ChunkSeal seal;
  private final byte[] plain;
  private final byte[] compressed;
  private final byte[] payload;
  private final byte[] record = new byte[ObjectLayout.RECORD_HEADER];

  ChunkEncoder(ObjectEncoding encoding, int chunkSize, ArchiveKey key, String file) {
    this.encoding = encoding;
    ObjectHeader header = ObjectHeader.create(encoding, chunkSize, key);
    this.seal = ChunkSeal.of(key);
    this.layout = new ObjectLayout(header, file, seal);
    this.plain = new byte[chunkSize];
    this.compressed = encoding.compressed() ? new byte[layout.maxPayload()] : null;
    this.payload = new byte[layout.maxPayload()];
  }

  /**
   * Reads {@code in} to its end and writes the whole object to {@code out}.
   *
   * @return the object's index (its length is {@code indexOffset} plus the index's length)
   */
  ChunkIndex encode(InputStream in, OutputStream out, MessageDigest plainSha256)
      throws IOException {
    byte[] header = layout.header().bytes();
    out.write(header);
    long position = header.length;
    long plainLength = 0;
    long[] offsets = new long[16];
    int count = 0;
    int lookahead = -1;
    boolean last = false;
    while (!last) {
      int n = 0;
      if (lookahead >= 0) {
        plain[n++] = (byte) lookahead;
      }
      n += in.readNBytes(plain, n, plain.length - n);
      lookahead = n == plain.length ? in.read() : -1;
      last = lookahead < 0;
      plainSha256.update(plain, 0, n);
      plainLength += n;
      if (count == ObjectLayout.MAX_CHUNKS) {
        throw new IOException(
            layout.file() + " is too large for " + ObjectLayout.MAX_CHUNKS + " chunks");
      }
      if (count == offsets.length) {
        offsets = Arrays.copyOf(offsets, count * 2);
      }
      offsets[count] = position;
      position += writeChunk(count++, n, last, out);
    }
    ChunkIndex index =
        new ChunkIndex(plainLength, plainSha256.digest(), Arrays.copyOf(offsets, count), position);
    out.write(index.encode(layout, seal));
    return index;
  }

  /** Seals and writes one chunk; returns the record's length. */
  private int writeChunk(long index, int n, boolean last, OutputStream out) throws IOException {
    int flags = last ? ObjectLayout.LAST : 0;
    byte[] data = plain;
    int length = n;
    if (encoding.compressed() && n > 0) {
      int c =
          (int)
              Zstd.compressByteArray(
                  compressed, 0, compressed.length, plain, 0, n, encoding.level());
      if (c < n) {
        data = compressed;
        length = c;
        flags |= ObjectLayout.ZSTD;
      }
    }
    int s = seal.seal(layout.chunkAad(index, n, flags), data, length, payload);
    ByteBuffer.wrap(record).putInt(s).putInt(n).put((byte) flags);
    out.write(record);
    out.write(payload, 0, s);
    return record.length + s;
  }

  ObjectLayout layout() {
    return layout;
  }
}
