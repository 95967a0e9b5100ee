package org.binlogrelay.protocol.event;

import org.binlogrelay.protocol.ProtocolException;

/**
 * The checksum algorithm byte a FORMAT_DESCRIPTION event carries just before its own checksum: what
 * trails every event of the file (or stream) it describes.
 */
public enum ChecksumAlgorithm {
  /** No checksum on the events (the FORMAT_DESCRIPTION event itself still has 4 bytes of room). */
  OFF(0),
  /**
   * A CRC32 (zlib polynomial) of the event minus its last 4 bytes, stored little-endian in them.
   */
  CRC32(1),
  /** Written by a server older than 5.6.1 that knows nothing of checksums. */
  UNDEFINED(255);

  private final int code;

  ChecksumAlgorithm(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  /** True if events described with this algorithm end in a 4-byte checksum to verify. */
  public boolean isChecksummed() {
    return this == CRC32;
  }

  /** The algorithm for {@code code}; {@link ProtocolException} for codes no server writes. */
  public static ChecksumAlgorithm forCode(int code) {
    for (ChecksumAlgorithm a : values()) {
      if (a.code == code) {
        return a;
      }
    }
    throw new ProtocolException(
        "unsupported binlog checksum algorithm "
            + code
            + " (known: 0 off, 1 CRC32, 255 undefined)");
  }
}
