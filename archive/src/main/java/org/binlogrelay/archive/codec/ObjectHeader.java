package org.binlogrelay.archive.codec;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.CRC32;

/**
 * The header at the start of an object in the chunk format (big-endian):
 *
 * <pre>
 *   7   magic "BRARCH1"
 *   1   format version (1)
 *   1   encoding: 1 zstd, 2 aes-gcm, 3 zstd+aes-gcm
 *   4   chunk size: plaintext bytes per chunk (every chunk but the last holds exactly this many)
 *   1   key id length k (0 when not encrypted, else 1 to 64)
 *   k   key id, ASCII
 *  16   encrypted only: key check, HMAC-SHA256(key, label || the bytes above) cut to 16 bytes
 *   4   CRC32 of all the bytes above
 * </pre>
 *
 * The whole header is part of every chunk's and the index's authenticated data, so no field can be
 * changed without every check failing. Any length is checked before it is used. Immutable;
 * thread-safe.
 */
final class ObjectHeader {
  static final byte[] MAGIC = "BRARCH1".getBytes(StandardCharsets.US_ASCII);
  static final int VERSION = 1;

  /** Bytes before the key id. */
  static final int FIXED = MAGIC.length + 1 + 1 + 4 + 1;

  /** The longest header (64-byte key id, key check, CRC). */
  static final int MAX_LENGTH = FIXED + 64 + 16 + 4;

  /** Smallest and largest accepted chunk sizes. */
  static final int MIN_CHUNK_SIZE = 4 * 1024;

  static final int MAX_CHUNK_SIZE = 64 * 1024 * 1024;

  private static final int KEY_CHECK = 16;

  private final ObjectEncoding encoding;
  private final int chunkSize;
  private final String keyId;
  private final byte[] bytes;

  private ObjectHeader(ObjectEncoding encoding, int chunkSize, String keyId, byte[] bytes) {
    this.encoding = encoding;
    this.chunkSize = chunkSize;
    this.keyId = keyId;
    this.bytes = bytes;
  }

  /** The header of a new object; {@code key} is required exactly when encrypting. */
  static ObjectHeader create(ObjectEncoding encoding, int chunkSize, ArchiveKey key) {
    checkChunkSize(chunkSize);
    if (encoding.identity() || encoding.encrypted() != (key != null)) {
      throw new IllegalArgumentException("no chunk header for " + encoding + " with key " + key);
    }
    byte[] id = key == null ? new byte[0] : key.id().getBytes(StandardCharsets.US_ASCII);
    int checked = FIXED + id.length;
    ByteBuffer b = ByteBuffer.allocate(checked + (key == null ? 0 : KEY_CHECK) + 4);
    b.put(MAGIC).put((byte) VERSION).put((byte) encoding.formatId()).putInt(chunkSize);
    b.put((byte) id.length).put(id);
    if (key != null) {
      b.put(key.check(b.array(), checked));
    }
    CRC32 crc = new CRC32();
    crc.update(b.array(), 0, b.position());
    b.putInt((int) crc.getValue());
    return new ObjectHeader(encoding, chunkSize, key == null ? "" : key.id(), b.array());
  }

  static void checkChunkSize(int chunkSize) {
    if (chunkSize < MIN_CHUNK_SIZE || chunkSize > MAX_CHUNK_SIZE) {
      throw new IllegalArgumentException(
          "chunk size "
              + chunkSize
              + " is out of range: give "
              + MIN_CHUNK_SIZE
              + " to "
              + MAX_CHUNK_SIZE
              + " bytes");
    }
  }

  /**
   * How long the header starting with {@code fixed} (its first {@link #FIXED} bytes) is, after the
   * checks that need only those bytes.
   */
  static int length(byte[] fixed, String file) throws ObjectDecodeException {
    if (!Arrays.equals(fixed, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
      throw bad(file, "it does not start with the magic BRARCH1: not an encoded archive object");
    }
    int version = fixed[MAGIC.length] & 0xff;
    if (version != VERSION) {
      throw bad(
          file,
          "format version "
              + version
              + " is not known to this relay (it reads version "
              + VERSION
              + "): upgrade the relay");
    }
    int encoding = fixed[MAGIC.length + 1] & 0xff;
    if (encoding < 1 || encoding > 3) {
      throw bad(file, "encoding byte " + encoding + " is not 1, 2 or 3");
    }
    int idLength = fixed[FIXED - 1] & 0xff;
    if ((encoding & 2) == 0 ? idLength != 0 : idLength < 1 || idLength > 64) {
      throw bad(file, "key id length " + idLength + " does not fit the encoding");
    }
    return FIXED + idLength + ((encoding & 2) == 0 ? 0 : KEY_CHECK) + 4;
  }

  /** Parses and checks a whole header (its length from {@link #length}). */
  static ObjectHeader parse(byte[] header, String file) throws ObjectDecodeException {
    int length = length(Arrays.copyOf(header, FIXED), file);
    if (header.length != length) {
      throw bad(file, "header length " + header.length + " is not " + length);
    }
    CRC32 crc = new CRC32();
    crc.update(header, 0, length - 4);
    if ((int) crc.getValue() != ByteBuffer.wrap(header, length - 4, 4).getInt()) {
      throw bad(file, "its header is damaged (CRC32 mismatch)");
    }
    ByteBuffer b = ByteBuffer.wrap(header);
    b.position(MAGIC.length + 1);
    int formatId = b.get();
    int chunkSize = b.getInt();
    if (chunkSize < MIN_CHUNK_SIZE || chunkSize > MAX_CHUNK_SIZE) {
      throw bad(file, "chunk size " + chunkSize + " is out of range");
    }
    byte[] id = new byte[b.get() & 0xff];
    b.get(id);
    String keyId = new String(id, StandardCharsets.US_ASCII);
    if (!keyId.isEmpty()) {
      try {
        ArchiveKey.checkId(keyId);
      } catch (IllegalArgumentException e) {
        throw bad(file, e.getMessage());
      }
    }
    ObjectEncoding encoding =
        new ObjectEncoding(
            (formatId & 1) != 0,
            (formatId & 1) != 0 ? ObjectEncoding.DEFAULT_LEVEL : 0,
            (formatId & 2) != 0);
    return new ObjectHeader(encoding, chunkSize, keyId, header.clone());
  }

  /**
   * The key of this object from {@code keys}, after its key check.
   *
   * @return {@code null} if the object is not encrypted
   */
  ArchiveKey key(KeyRing keys, String file) throws ObjectDecodeException {
    if (!encoding.encrypted()) {
      return null;
    }
    ArchiveKey key =
        keys.find(keyId)
            .orElseThrow(
                () ->
                    new ObjectDecodeException(
                        ObjectDecodeException.Kind.UNKNOWN_KEY,
                        file
                            + " is encrypted with archive key id "
                            + keyId
                            + ", which this relay does not have (it has "
                            + (keys.keyIds().isEmpty() ? "no keys" : keys.keyIds())
                            + "): put that key's file in the decryption keys directory"));
    int checked = bytes.length - 4 - KEY_CHECK;
    byte[] expected = key.check(bytes, checked);
    if (!java.security.MessageDigest.isEqual(
        expected, Arrays.copyOfRange(bytes, checked, checked + KEY_CHECK))) {
      throw new ObjectDecodeException(
          ObjectDecodeException.Kind.WRONG_KEY,
          file
              + " is encrypted with archive key id "
              + keyId
              + ", but the key this relay has under that id is another key: find the key file"
              + " that was used when the object was written");
    }
    return key;
  }

  ObjectEncoding encoding() {
    return encoding;
  }

  int chunkSize() {
    return chunkSize;
  }

  /** The key id, empty when not encrypted. */
  String keyId() {
    return keyId;
  }

  int length() {
    return bytes.length;
  }

  byte[] bytes() {
    return bytes.clone();
  }

  private static ObjectDecodeException bad(String file, String what) {
    return new ObjectDecodeException(
        ObjectDecodeException.Kind.BAD_HEADER, "archived object of " + file + ": " + what);
  }
}
