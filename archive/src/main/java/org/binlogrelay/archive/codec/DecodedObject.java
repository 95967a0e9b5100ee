package org.binlogrelay.archive.codec;

import java.util.HexFormat;

/**
 * What decoding an archived object produced: the file's length and the SHA-256 of its bytes, to
 * compare with the metadata object's. Immutable.
 *
 * @param plainLength the file's size
 * @param sha256 the SHA-256 of the file's bytes (32 bytes)
 */
public record DecodedObject(long plainLength, byte[] sha256) {
  public DecodedObject {
    sha256 = sha256.clone();
  }

  @Override
  public byte[] sha256() {
    return sha256.clone();
  }

  /** The SHA-256 in lower-case hex, as in the metadata object. */
  public String sha256Hex() {
    return HexFormat.of().formatHex(sha256);
  }

  /**
   * Checks the decoded file against what its metadata object recorded.
   *
   * @throws ObjectDecodeException ({@code DIGEST_MISMATCH}) naming both values
   */
  public void check(String file, long expectedLength, String expectedSha256Hex)
      throws ObjectDecodeException {
    if (plainLength != expectedLength || !sha256Hex().equalsIgnoreCase(expectedSha256Hex)) {
      throw new ObjectDecodeException(
          ObjectDecodeException.Kind.DIGEST_MISMATCH,
          "the archived copy of "
              + file
              + " is "
              + plainLength
              + " bytes with SHA-256 "
              + sha256Hex()
              + ", but the archive recorded "
              + expectedLength
              + " bytes with SHA-256 "
              + expectedSha256Hex);
    }
  }
}
