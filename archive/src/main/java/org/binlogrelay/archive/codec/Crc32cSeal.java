package org.binlogrelay.archive.codec;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Payload = the data, then the CRC32C of the authenticated data and the data (4 bytes): catches
 * damage and chunks out of place in objects that are compressed but not encrypted. Not thread-safe.
 */
final class Crc32cSeal implements ChunkSeal {
  private final CRC32C crc = new CRC32C();

  @Override
  public int sealedLength(int dataLength) {
    return dataLength + 4;
  }

  @Override
  public int seal(byte[] aad, byte[] data, int length, byte[] out) {
    if (data != out) {
      System.arraycopy(data, 0, out, 0, length);
    }
    ByteBuffer.wrap(out, length, 4).putInt(crc(aad, out, length));
    return length + 4;
  }

  @Override
  public int open(byte[] aad, byte[] payload, int length, byte[] out) throws BrokenSealException {
    if (length < 4) {
      throw new BrokenSealException(
          "payload of " + length + " bytes is shorter than its CRC", null);
    }
    int n = length - 4;
    if (crc(aad, payload, n) != ByteBuffer.wrap(payload, n, 4).getInt()) {
      throw new BrokenSealException("CRC32C mismatch", null);
    }
    if (payload != out) {
      System.arraycopy(payload, 0, out, 0, n);
    }
    return n;
  }

  private int crc(byte[] aad, byte[] data, int length) {
    crc.reset();
    crc.update(aad);
    crc.update(data, 0, length);
    return (int) crc.getValue();
  }
}
