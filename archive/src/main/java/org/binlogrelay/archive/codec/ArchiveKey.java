package org.binlogrelay.archive.codec;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;

/**
 * One AES-256 key of the archive and its id. The id is written in every object it encrypts (and in
 * the object's metadata), so that a reader finds the key again after the writer moved to a new one;
 * by default it is the first 16 hex digits of the SHA-256 of the key (public: it reveals nothing
 * usable about the key). {@link #toString()} shows the id only. Immutable; thread-safe.
 */
public final class ArchiveKey {
  /** Key length in bytes (AES-256). */
  public static final int LENGTH = 32;

  private static final Pattern ID = Pattern.compile("[A-Za-z0-9._-]{1,64}");
  private static final byte[] CHECK_LABEL =
      "binlog-relay archive key check".getBytes(StandardCharsets.US_ASCII);

  private final String id;
  private final SecretKey aes;
  private final SecretKeySpec hmac;

  private ArchiveKey(String id, byte[] key) {
    this.id = id;
    this.aes = new SecretKeySpec(key, "AES");
    this.hmac = new SecretKeySpec(key, "HmacSHA256");
  }

  /**
   * A key from its 32 bytes.
   *
   * @param id the key id, or {@code null} for {@link #defaultId}
   * @throws IllegalArgumentException if the key is not 32 bytes, is all zero, or the id is not 1 to
   *     64 of {@code A-Z a-z 0-9 . _ -}
   */
  public static ArchiveKey of(byte[] key, String id) {
    if (key.length != LENGTH) {
      throw new IllegalArgumentException(
          "an archive key is " + LENGTH + " bytes (AES-256), not " + key.length);
    }
    boolean zero = true;
    for (byte b : key) {
      zero &= b == 0;
    }
    if (zero) {
      throw new IllegalArgumentException("the archive key is all zero bytes: generate a real one");
    }
    String keyId = id == null ? defaultId(key) : id;
    checkId(keyId);
    return new ArchiveKey(keyId, key.clone());
  }

  /** The first 16 hex digits of the SHA-256 of the key. */
  public static String defaultId(byte[] key) {
    try {
      byte[] sha = MessageDigest.getInstance("SHA-256").digest(key);
      return HexFormat.of().formatHex(sha, 0, 8);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("the JDK has no SHA-256", e);
    }
  }

  /** Refuses an id that could not be written in an object's header or S3 metadata. */
  public static void checkId(String id) {
    if (!ID.matcher(id).matches()) {
      throw new IllegalArgumentException(
          "archive key id '" + id + "' is not 1 to 64 of the characters A-Z a-z 0-9 . _ -");
    }
  }

  public String id() {
    return id;
  }

  /** The AES key for {@code AES/GCM/NoPadding}. */
  SecretKey aes() {
    return aes;
  }

  /**
   * A 16-byte value that proves, to a holder of the key, that {@code header} was written with this
   * key (HMAC-SHA256 of a label and the header, cut to 16 bytes): tells a wrong key from a damaged
   * chunk.
   */
  byte[] check(byte[] header, int length) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(hmac);
      mac.update(CHECK_LABEL);
      mac.update(header, 0, length);
      return Arrays.copyOf(mac.doFinal(), 16);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("the JDK has no HmacSHA256", e);
    }
  }

  /** Whether the two hold the same key bytes (constant time). */
  boolean sameKey(ArchiveKey other) {
    return MessageDigest.isEqual(aes.getEncoded(), other.aes.getEncoded());
  }

  @Override
  public String toString() {
    return "ArchiveKey[" + id + "]";
  }
}
