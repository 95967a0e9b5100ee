package org.binlogrelay.archive.codec;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The chunk format after the {@link ObjectHeader}, for one object of one file: chunk records, then
 * the index (big-endian).
 *
 * <pre>
 * chunk record, one per chunk size of plaintext (at least one, empty for an empty file):
 *   4   payload length s
 *   4   plaintext length p (the chunk size, except in the last chunk)
 *   1   flags: 1 = last chunk, 2 = zstd-compressed (a chunk that zstd does not shrink is stored as is)
 *   s   payload: the sealed data (AesGcmSeal: nonce, then ciphertext and tag per 64 KiB
 *       segment; Crc32cSeal: data, CRC32C)
 * index:
 *   4   magic "BRIX"
 *   4   chunk count n
 *   8   plaintext length (the file's size)
 *   32  SHA-256 of the plaintext
 *   8n  object offset of each chunk record
 *   t   the seal of no data over the index bytes above (AES-GCM: nonce and tag; else CRC32C)
 *   4   index length (from "BRIX" through the seal)
 *   4   magic "BREN"
 * </pre>
 *
 * The authenticated data of chunk {@code i} is {@code "chunk" || header || u16 name length || file
 * name (UTF-8) || u64 i || u32 p || u8 flags}; of the index, {@code "index" || header || name ||
 * the index bytes}. So a chunk opens only at its own position in its own file's object with its own
 * length, and only the real last chunk carries the last flag: swapped, moved, cut or extended
 * objects fail. Immutable; thread-safe.
 */
final class ObjectLayout {
  static final int RECORD_HEADER = 9;
  static final int LAST = 1;
  static final int ZSTD = 2;
  static final byte[] INDEX_MAGIC = "BRIX".getBytes(StandardCharsets.US_ASCII);
  static final byte[] END_MAGIC = "BREN".getBytes(StandardCharsets.US_ASCII);

  /** Index bytes before the offsets. */
  static final int INDEX_FIXED = 4 + 4 + 8 + 32;

  /** The bytes after the index: its length and the end magic. */
  static final int TAIL = 8;

  /** At most this many chunks (64 GiB of plaintext at the smallest chunk size). */
  static final int MAX_CHUNKS = 1 << 24;

  private final ObjectHeader header;
  private final String file;
  private final byte[] bound;
  private final int maxPayload;
  private final ChunkSeal seal;

  /** {@code seal} is used for its lengths only. */
  ObjectLayout(ObjectHeader header, String file, ChunkSeal seal) {
    this.header = header;
    this.file = file;
    this.seal = seal;
    byte[] name = file.getBytes(StandardCharsets.UTF_8);
    byte[] h = header.bytes();
    this.bound =
        ByteBuffer.allocate(h.length + 2 + name.length)
            .put(h)
            .putShort((short) name.length)
            .put(name)
            .array();
    this.maxPayload = seal.sealedLength((int) compressBound(header.chunkSize()));
  }

  /**
   * zstd's bound on a compressed size ({@code ZSTD_COMPRESSBOUND}), computed here so that reading
   * an object that is not compressed never loads the native library.
   */
  static long compressBound(long n) {
    long small = n < (128 << 10) ? ((128 << 10) - n) >> 11 : 0;
    return n + (n >> 8) + small;
  }

  ObjectHeader header() {
    return header;
  }

  String file() {
    return file;
  }

  /** The largest payload a chunk record of this object may declare. */
  int maxPayload() {
    return maxPayload;
  }

  /** The payload length of {@code dataLength} bytes of data. */
  int sealedLength(int dataLength) {
    return seal.sealedLength(dataLength);
  }

  /** The length of the index of {@code count} chunks, without the tail. */
  int indexLength(int count) {
    return INDEX_FIXED + 8 * count + seal.sealedLength(0);
  }

  byte[] chunkAad(long index, int plainLength, int flags) {
    return ByteBuffer.allocate(5 + bound.length + 13)
        .put("chunk".getBytes(StandardCharsets.US_ASCII))
        .put(bound)
        .putLong(index)
        .putInt(plainLength)
        .put((byte) flags)
        .array();
  }

  byte[] indexAad(byte[] index, int length) {
    return ByteBuffer.allocate(5 + bound.length + length)
        .put("index".getBytes(StandardCharsets.US_ASCII))
        .put(bound)
        .put(index, 0, length)
        .array();
  }

  /** Where chunk {@code index} is, for messages. */
  String chunk(long index, long offset) {
    return "chunk " + index + " (object offset " + offset + ") of the archived object of " + file;
  }
}
