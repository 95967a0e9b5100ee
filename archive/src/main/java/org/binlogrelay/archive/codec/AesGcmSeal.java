package org.binlogrelay.archive.codec;

import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;

/**
 * AES-256-GCM: payload = a random 96-bit nonce, then the ciphertext and its 128-bit tag. A fresh
 * random nonce per payload (the key may seal up to 2^32 payloads, NIST SP 800-38D: 16 PiB of
 * binlogs at 4 MiB chunks). Not thread-safe.
 */
final class AesGcmSeal implements ChunkSeal {
  static final int NONCE = 12;
  static final int TAG = 16;

  private static final SecureRandom RANDOM = new SecureRandom();

  private final ArchiveKey key;
  private final Cipher cipher;
  private final byte[] nonce = new byte[NONCE];

  AesGcmSeal(ArchiveKey key) {
    this.key = key;
    try {
      this.cipher = Cipher.getInstance("AES/GCM/NoPadding");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("the JDK has no AES/GCM/NoPadding", e);
    }
  }

  @Override
  public int overhead() {
    return NONCE + TAG;
  }

  @Override
  public int seal(byte[] aad, byte[] data, int length, byte[] out) {
    RANDOM.nextBytes(nonce);
    try {
      cipher.init(Cipher.ENCRYPT_MODE, key.aes(), new GCMParameterSpec(TAG * 8, nonce));
      cipher.updateAAD(aad);
      System.arraycopy(nonce, 0, out, 0, NONCE);
      return NONCE + cipher.doFinal(data, 0, length, out, NONCE);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM encryption failed", e);
    }
  }

  @Override
  public int open(byte[] aad, byte[] payload, int length, byte[] out) throws BrokenSealException {
    if (length < NONCE + TAG) {
      throw new BrokenSealException(
          "payload of " + length + " bytes is shorter than its tag", null);
    }
    try {
      cipher.init(Cipher.DECRYPT_MODE, key.aes(), new GCMParameterSpec(TAG * 8, payload, 0, NONCE));
      cipher.updateAAD(aad);
      return cipher.doFinal(payload, NONCE, length - NONCE, out, 0);
    } catch (AEADBadTagException e) {
      throw new BrokenSealException("AES-GCM tag mismatch", e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM decryption failed", e);
    }
  }
}
