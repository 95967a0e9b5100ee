package org.binlogrelay.testcontainers;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Random;

/**
 * The stored forms of a password that the relay's accounts file takes (docs/running.md,
 * "Accounts"), made here so that a test can give replica accounts as plain passwords: {@code
 * caching_sha2_password} ({@code $A$00A$} + 20 salt characters + 43 characters of SHA-256-crypt,
 * 10,000 rounds as MySQL 9.7 stores them) and {@code mysql_native_password} ({@code
 * *HEX(SHA1(SHA1(password)))}).
 *
 * <p>The relay itself has the same functions ({@code
 * org.binlogrelay.protocol.auth.PasswordHashes}); this module does not depend on the relay's
 * modules, so that its users get Testcontainers and nothing else on their test class path. {@code
 * PasswordHashTest} checks the hashes made here with the relay's verifier.
 *
 * <p>Stateless and thread-safe.
 */
final class PasswordHash {
  static final int ROUNDS = 10_000;
  private static final int SALT_CHARS = 20;
  private static final char[] SALT_ALPHABET =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789./".toCharArray();
  private static final char[] CRYPT_ALPHABET =
      "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".toCharArray();

  /** SHA-256-crypt's order of the final digest's bytes, three at a time. */
  private static final int[][] GROUPS = {
    {0, 10, 20},
    {21, 1, 11},
    {12, 22, 2},
    {3, 13, 23},
    {24, 4, 14},
    {15, 25, 5},
    {6, 16, 26},
    {27, 7, 17},
    {18, 28, 8},
    {9, 19, 29}
  };

  private static final Random RANDOM = new SecureRandom();

  private PasswordHash() {}

  /** The {@code caching_sha2_password} stored form of {@code password}, with a random salt. */
  static String cachingSha2(String password) {
    char[] salt = new char[SALT_CHARS];
    for (int i = 0; i < salt.length; i++) {
      salt[i] = SALT_ALPHABET[RANDOM.nextInt(SALT_ALPHABET.length)];
    }
    return cachingSha2(password, new String(salt));
  }

  /** The {@code caching_sha2_password} stored form with a given 20-character salt (tests). */
  static String cachingSha2(String password, String salt) {
    byte[] pw = checkedPassword(password);
    byte[] saltBytes = salt.getBytes(StandardCharsets.US_ASCII);
    if (saltBytes.length != SALT_CHARS) {
      throw new IllegalArgumentException("salt must be " + SALT_CHARS + " characters");
    }
    return String.format(Locale.ROOT, "$A$%03X$", ROUNDS / 1000)
        + salt
        + sha256Crypt(pw, saltBytes, ROUNDS);
  }

  /** The {@code mysql_native_password} stored form of {@code password}. */
  static String nativePassword(String password) {
    byte[] pw = checkedPassword(password);
    MessageDigest sha1 = digest("SHA-1");
    return "*" + HexFormat.of().withUpperCase().formatHex(sha1.digest(sha1.digest(pw)));
  }

  private static byte[] checkedPassword(String password) {
    byte[] pw = password.getBytes(StandardCharsets.UTF_8);
    if (pw.length == 0 || pw.length > 256) {
      throw new IllegalArgumentException(
          "a replica account's password must be 1..256 bytes, got " + pw.length);
    }
    return pw;
  }

  /** Ulrich Drepper's SHA-256-crypt digest (43 characters), as MySQL's my_crypt_genhash. */
  static String sha256Crypt(byte[] pw, byte[] salt, int rounds) {
    MessageDigest md = digest("SHA-256");
    md.update(pw);
    md.update(salt);
    md.update(pw);
    byte[] b = md.digest();

    md.update(pw);
    md.update(salt);
    int n = pw.length;
    for (; n > 32; n -= 32) {
      md.update(b, 0, 32);
    }
    md.update(b, 0, n);
    for (int bits = pw.length; bits > 0; bits >>= 1) {
      if ((bits & 1) != 0) {
        md.update(b);
      } else {
        md.update(pw);
      }
    }
    byte[] a = md.digest();

    for (int i = 0; i < pw.length; i++) {
      md.update(pw);
    }
    byte[] p = repeat(md.digest(), pw.length);
    for (int i = 0; i < 16 + (a[0] & 0xff); i++) {
      md.update(salt);
    }
    byte[] s = repeat(md.digest(), salt.length);

    byte[] c = a;
    for (int i = 0; i < rounds; i++) {
      md.update((i & 1) != 0 ? p : c);
      if (i % 3 != 0) {
        md.update(s);
      }
      if (i % 7 != 0) {
        md.update(p);
      }
      md.update((i & 1) != 0 ? c : p);
      c = md.digest();
    }

    StringBuilder out = new StringBuilder(43);
    for (int[] g : GROUPS) {
      encode(out, c[g[0]], c[g[1]], c[g[2]], 4);
    }
    encode(out, (byte) 0, c[31], c[30], 3);
    return out.toString();
  }

  private static byte[] repeat(byte[] block, int length) {
    byte[] out = new byte[length];
    for (int i = 0; i < length; i++) {
      out[i] = block[i % block.length];
    }
    return out;
  }

  private static void encode(StringBuilder out, byte b2, byte b1, byte b0, int chars) {
    int w = ((b2 & 0xff) << 16) | ((b1 & 0xff) << 8) | (b0 & 0xff);
    for (int i = 0; i < chars; i++) {
      out.append(CRYPT_ALPHABET[w & 0x3f]);
      w >>>= 6;
    }
  }

  private static MessageDigest digest(String algorithm) {
    try {
      return MessageDigest.getInstance(algorithm);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(algorithm + " is missing from this JDK", e);
    }
  }
}
