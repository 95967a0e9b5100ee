package org.binlogrelay.protocol.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Locale;

/**
 * A {@code mysql_native_password} credential: SHA1(SHA1(password)), 20 bytes, written as MySQL
 * prints it in {@code mysql.user.authentication_string}: {@code *} and 40 upper-case hex digits.
 *
 * <p>A client proves the password with {@code XOR(SHA1(pw), SHA1(scramble + SHA1(SHA1(pw))))}; the
 * server recovers SHA1(pw) from it with the stored hash and checks that hashing it again gives the
 * stored hash ({@link #verifyScramble}). Immutable and thread-safe.
 */
public final class NativePasswordHash implements Credential {
  public static final String PLUGIN = "mysql_native_password";
  private static final int SHA1_BYTES = 20;

  private final byte[] stage2;

  private NativePasswordHash(byte[] stage2) {
    this.stage2 = stage2;
  }

  /** Parses {@code *} followed by 40 hex digits (either case). */
  public static NativePasswordHash parse(String stored) {
    if (stored.length() != 41 || stored.charAt(0) != '*') {
      throw new IllegalArgumentException(
          "mysql_native_password hash must be '*' and 40 hex digits, got "
              + stored.length()
              + " characters");
    }
    try {
      return new NativePasswordHash(HexFormat.of().parseHex(stored, 1, 41));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "mysql_native_password hash has a character that is not a hex digit", e);
    }
  }

  /** The hash of {@code password} (its UTF-8 bytes), as {@code PASSWORD()} made it. */
  public static NativePasswordHash of(String password) {
    if (password.isEmpty()) {
      throw new IllegalArgumentException("empty passwords are not supported");
    }
    MessageDigest sha1 = sha1();
    byte[] stage1 = sha1.digest(password.getBytes(StandardCharsets.UTF_8));
    return new NativePasswordHash(sha1.digest(stage1));
  }

  /**
   * True if {@code response} (20 bytes from the client) proves knowledge of the password for {@code
   * scramble}. Constant-time in the comparison.
   */
  public boolean verifyScramble(byte[] scramble, byte[] response) {
    if (response.length != SHA1_BYTES) {
      return false;
    }
    MessageDigest sha1 = sha1();
    sha1.update(scramble);
    sha1.update(stage2);
    byte[] candidateStage1 = sha1.digest();
    for (int i = 0; i < SHA1_BYTES; i++) {
      candidateStage1[i] ^= response[i];
    }
    return MessageDigest.isEqual(sha1.digest(candidateStage1), stage2);
  }

  /** What a client computes from the password (for tests and test clients). */
  public static byte[] scramble(String password, byte[] scramble) {
    MessageDigest sha1 = sha1();
    byte[] stage1 = sha1.digest(password.getBytes(StandardCharsets.UTF_8));
    byte[] stage2 = sha1.digest(stage1);
    sha1.update(scramble);
    sha1.update(stage2);
    byte[] out = sha1.digest();
    for (int i = 0; i < SHA1_BYTES; i++) {
      out[i] ^= stage1[i];
    }
    return out;
  }

  /** SHA1(SHA1(password)), 20 bytes (a copy): what a {@link CertificateProof} is made of. */
  byte[] stage2() {
    return stage2.clone();
  }

  @Override
  public String pluginName() {
    return PLUGIN;
  }

  @Override
  public String storedForm() {
    return "*" + HexFormat.of().formatHex(stage2).toUpperCase(Locale.ROOT);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof NativePasswordHash h && MessageDigest.isEqual(stage2, h.stage2);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(stage2);
  }

  /** Does not print the hash. */
  @Override
  public String toString() {
    return "NativePasswordHash[*...]";
  }

  static MessageDigest sha1() {
    try {
      return MessageDigest.getInstance("SHA-1");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-1 is missing from this JVM", e);
    }
  }
}
