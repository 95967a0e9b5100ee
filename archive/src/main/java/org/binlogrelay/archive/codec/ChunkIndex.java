package org.binlogrelay.archive.codec;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.Arrays;

/**
 * The index at the end of an object in the chunk format (layout in {@link ObjectLayout}): where
 * each chunk starts, the plaintext's length and SHA-256, sealed like a chunk. Lets a reader fetch
 * and check chunks one by one, in parallel, by ranges. Immutable; thread-safe.
 *
 * @param plainLength the file's size
 * @param sha256 the SHA-256 of the file's bytes
 * @param offsets the object offset of each chunk record, ascending
 * @param indexOffset where the index starts (the end of the last chunk record)
 */
record ChunkIndex(long plainLength, byte[] sha256, long[] offsets, long indexOffset) {

  int count() {
    return offsets.length;
  }

  /** The index and its tail. */
  byte[] encode(ObjectLayout layout, ChunkSeal seal) {
    int length = layout.indexLength(offsets.length);
    ByteBuffer b = ByteBuffer.allocate(length + ObjectLayout.TAIL);
    b.put(ObjectLayout.INDEX_MAGIC).putInt(offsets.length).putLong(plainLength).put(sha256);
    for (long o : offsets) {
      b.putLong(o);
    }
    int body = b.position();
    byte[] sealed = new byte[seal.sealedLength(0)];
    seal.seal(layout.indexAad(b.array(), body), new byte[0], 0, sealed);
    b.put(sealed).putInt(length).put(ObjectLayout.END_MAGIC);
    return b.array();
  }

  /** The chunk count an index declares, from its first {@link ObjectLayout#INDEX_FIXED} bytes. */
  static int count(byte[] fixed, ObjectLayout layout) throws ObjectDecodeException {
    if (!Arrays.equals(fixed, 0, 4, ObjectLayout.INDEX_MAGIC, 0, 4)) {
      throw damaged(layout, "it does not start with BRIX");
    }
    int count = ByteBuffer.wrap(fixed, 4, 4).getInt();
    if (count < 1 || count > ObjectLayout.MAX_CHUNKS) {
      throw damaged(layout, "chunk count " + count + " is out of range");
    }
    return count;
  }

  /**
   * Parses and checks an index: its seal, its tail, and that its offsets and length fit the
   * header's chunk size and the index's own position.
   *
   * @param bytes the index and its tail
   * @param indexOffset where the index starts in the object
   */
  static ChunkIndex parse(byte[] bytes, long indexOffset, ObjectLayout layout, ChunkSeal seal)
      throws ObjectDecodeException {
    if (bytes.length < ObjectLayout.INDEX_FIXED + ObjectLayout.TAIL) {
      throw damaged(layout, "it is " + bytes.length + " bytes long");
    }
    int count = count(bytes, layout);
    int length = layout.indexLength(count);
    if (bytes.length != length + ObjectLayout.TAIL) {
      throw damaged(layout, count + " chunks do not fit its " + bytes.length + " bytes");
    }
    ByteBuffer b = ByteBuffer.wrap(bytes);
    if (b.getInt(length) != length
        || !Arrays.equals(bytes, length + 4, length + 8, ObjectLayout.END_MAGIC, 0, 4)) {
      throw damaged(layout, "its tail (length and BREN) is damaged");
    }
    int sealed = seal.sealedLength(0);
    int body = length - sealed;
    try {
      seal.open(
          layout.indexAad(bytes, body),
          Arrays.copyOfRange(bytes, body, length),
          sealed,
          new byte[0]);
    } catch (ChunkSeal.BrokenSealException e) {
      throw damaged(layout, "it fails its check (" + e.getMessage() + ")");
    }
    b.position(8);
    long plainLength = b.getLong();
    byte[] sha = new byte[32];
    b.get(sha);
    long[] offsets = new long[count];
    for (int i = 0; i < count; i++) {
      offsets[i] = b.getLong();
    }
    long chunkSize = layout.header().chunkSize();
    boolean lengthFits =
        count == 1
            ? plainLength >= 0 && plainLength <= chunkSize
            : plainLength > (count - 1) * chunkSize && plainLength <= count * chunkSize;
    if (!lengthFits) {
      throw damaged(
          layout, "plaintext length " + plainLength + " does not fit " + count + " chunks");
    }
    long previous = layout.header().length();
    if (offsets[0] != previous) {
      throw damaged(layout, "chunk 0 is not right after the header");
    }
    for (int i = 1; i < count; i++) {
      if (offsets[i] < offsets[i - 1] + ObjectLayout.RECORD_HEADER + seal.sealedLength(0)) {
        throw damaged(layout, "chunk offsets are not ascending at chunk " + i);
      }
    }
    if (indexOffset < offsets[count - 1] + ObjectLayout.RECORD_HEADER + seal.sealedLength(0)) {
      throw damaged(layout, "the last chunk overlaps the index");
    }
    return new ChunkIndex(plainLength, sha, offsets, indexOffset);
  }

  /** Whether this index agrees with what a reader saw while streaming the chunks. */
  boolean matches(long plainLength, byte[] sha256, long[] offsets) {
    return this.plainLength == plainLength
        && MessageDigest.isEqual(this.sha256, sha256)
        && Arrays.equals(this.offsets, offsets);
  }

  /** The end (exclusive) of chunk {@code i}'s record. */
  long end(int i) {
    return i + 1 < offsets.length ? offsets[i + 1] : indexOffset;
  }

  static ObjectDecodeException damaged(ObjectLayout layout, String what) {
    return new ObjectDecodeException(
        ObjectDecodeException.Kind.DAMAGED_INDEX,
        "the chunk index of the archived object of " + layout.file() + " is damaged: " + what);
  }
}
