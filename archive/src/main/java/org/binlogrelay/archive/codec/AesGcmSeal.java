package org.binlogrelay.archive.codec;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;

/**
 * AES-256-GCM. Payload = a random 96-bit nonce, then the data in segments of {@link #SEGMENT} bytes
 * (the last one shorter, one empty segment for no data), each followed by its 128-bit tag. Segment
 * {@code j} uses the nonce with its last 32 bits XORed with {@code j}, and authenticates the
 * payload's data with {@code u32 j || u8 last} appended. Why segments: the JDK 17 SunJCE AES-GCM
 * runs at about 20 MB/s on a single multi-megabyte byte array, against more than 1 GB/s on 64 KiB
 * pieces (measured here, 2026-11), and decryption cannot be fed in pieces (it releases nothing
 * before the tag). Costs 16 bytes per 64 KiB (0.02%).
 *
 * <p>A fresh random nonce per payload: the key may seal up to 2^32 payloads (NIST SP 800-38D), 16
 * PiB of binlogs at 4 MiB chunks. Not thread-safe.
 */
final class AesGcmSeal implements ChunkSeal {
  static final int NONCE = 12;
  static final int TAG = 16;
  static final int SEGMENT = 64 * 1024;

  private static final SecureRandom RANDOM = new SecureRandom();

  private final ArchiveKey key;
  private final Cipher cipher;
  private final byte[] nonce = new byte[NONCE];
  private final byte[] segmentNonce = new byte[NONCE];

  AesGcmSeal(ArchiveKey key) {
    this.key = key;
    try {
      this.cipher = Cipher.getInstance("AES/GCM/NoPadding");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("the JDK has no AES/GCM/NoPadding", e);
    }
  }

  @Override
  public int sealedLength(int dataLength) {
    return NONCE + dataLength + TAG * segments(dataLength);
  }

  private static int segments(int dataLength) {
    return Math.max(1, (dataLength + SEGMENT - 1) / SEGMENT);
  }

  @Override
  public int seal(byte[] aad, byte[] data, int length, byte[] out) {
    RANDOM.nextBytes(nonce);
    System.arraycopy(nonce, 0, out, 0, NONCE);
    int segments = segments(length);
    int o = NONCE;
    try {
      for (int j = 0; j < segments; j++) {
        int from = j * SEGMENT;
        int n = Math.min(SEGMENT, length - from);
        init(Cipher.ENCRYPT_MODE, aad, j, j == segments - 1);
        o += cipher.doFinal(data, from, n, out, o);
      }
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM encryption failed", e);
    }
    return o;
  }

  @Override
  public int open(byte[] aad, byte[] payload, int length, byte[] out) throws BrokenSealException {
    int segments = (length - NONCE + SEGMENT + TAG - 1) / (SEGMENT + TAG);
    int dataLength = length - NONCE - TAG * segments;
    if (length < NONCE + TAG || sealedLength(dataLength) != length) {
      throw new BrokenSealException("payload of " + length + " bytes is not a sealed length", null);
    }
    System.arraycopy(payload, 0, nonce, 0, NONCE);
    int in = NONCE;
    int o = 0;
    try {
      for (int j = 0; j < segments; j++) {
        int n = Math.min(SEGMENT, dataLength - j * SEGMENT);
        init(Cipher.DECRYPT_MODE, aad, j, j == segments - 1);
        o += cipher.doFinal(payload, in, n + TAG, out, o);
        in += n + TAG;
      }
    } catch (AEADBadTagException e) {
      throw new BrokenSealException("AES-GCM tag mismatch", e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM decryption failed", e);
    }
    return o;
  }

  private void init(int mode, byte[] aad, int segment, boolean last)
      throws GeneralSecurityException {
    System.arraycopy(nonce, 0, segmentNonce, 0, NONCE);
    ByteBuffer b = ByteBuffer.wrap(segmentNonce);
    b.putInt(NONCE - 4, b.getInt(NONCE - 4) ^ segment);
    cipher.init(mode, key.aes(), new GCMParameterSpec(TAG * 8, segmentNonce));
    cipher.updateAAD(aad);
    cipher.updateAAD(
        new byte[] {
          (byte) (segment >>> 24),
          (byte) (segment >>> 16),
          (byte) (segment >>> 8),
          (byte) segment,
          (byte) (last ? 1 : 0)
        });
  }
}
