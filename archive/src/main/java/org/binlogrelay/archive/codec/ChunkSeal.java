package org.binlogrelay.archive.codec;

/**
 * What protects each chunk (and the index) of an object: one class per flavour, chosen once from
 * the header. {@link AesGcmSeal} encrypts and authenticates; {@link Crc32cSeal} (objects that are
 * only compressed) detects accidental damage and misplaced chunks but is no defence against someone
 * who can write the bucket. Both bind the chunk to its authenticated data (the header, the file
 * name, the chunk's index, plaintext length and flags). Instances keep a reusable cipher or
 * checksum and are not thread-safe: one per encoder, decoder or chunk read.
 */
interface ChunkSeal {

  /** The length of the payload that seals {@code dataLength} bytes of data. */
  int sealedLength(int dataLength);

  /**
   * Seals {@code data[0, length)}, writing the payload into {@code out} from 0.
   *
   * @return the payload's length, {@link #sealedLength}{@code (length)}
   */
  int seal(byte[] aad, byte[] data, int length, byte[] out);

  /**
   * Opens the payload {@code payload[0, length)}, writing its data into {@code out} from 0.
   *
   * @return the data's length
   * @throws BrokenSealException if the payload or its authenticated data were changed
   */
  int open(byte[] aad, byte[] payload, int length, byte[] out) throws BrokenSealException;

  /** The seal an object's header asks for. */
  static ChunkSeal of(ArchiveKey key) {
    return key == null ? new Crc32cSeal() : new AesGcmSeal(key);
  }

  /** A payload that does not open. */
  final class BrokenSealException extends Exception {
    private static final long serialVersionUID = 1L;

    BrokenSealException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
