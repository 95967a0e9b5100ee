package org.binlogrelay.protocol.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * SHA-256-crypt, Ulrich Drepper's "Unix crypt using SHA-256" (the {@code $5$} scheme), as MySQL's
 * {@code my_crypt_genhash} computes it for {@code caching_sha2_password}: the digest of a password,
 * a salt of up to 20 bytes and a number of rounds, as 43 characters of crypt's base-64 alphabet.
 *
 * <p>Stateless and thread-safe. Costs {@code rounds} SHA-256 computations (MySQL 9.7 stores
 * 10,000), so it runs only on the full-authentication path, never per packet.
 */
public final class Sha256Crypt {
  /** Length of the encoded digest. */
  public static final int DIGEST_CHARS = 43;

  /** Longest salt the scheme uses; longer salts are cut. */
  public static final int MAX_SALT_BYTES = 20;

  public static final int MIN_ROUNDS = 1000;

  /** MySQL's cap: three hex digits of thousands. */
  public static final int MAX_ROUNDS = 0xFFF * 1000;

  private static final char[] ALPHABET =
      "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".toCharArray();

  /**
   * The order in which the final digest's bytes are encoded, three at a time (last group: two
   * bytes).
   */
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

  private static final int BLOCK = 32;

  private Sha256Crypt() {}

  /**
   * The 43-character digest of {@code password} with {@code salt} (at most 20 bytes used) and
   * {@code rounds}.
   */
  public static String digest(byte[] password, byte[] salt, int rounds) {
    if (rounds < MIN_ROUNDS || rounds > MAX_ROUNDS) {
      throw new IllegalArgumentException(
          "SHA-256-crypt rounds " + rounds + " outside " + MIN_ROUNDS + ".." + MAX_ROUNDS);
    }
    byte[] s = salt.length > MAX_SALT_BYTES ? Arrays.copyOf(salt, MAX_SALT_BYTES) : salt;
    MessageDigest md = sha256();
    byte[] p = password;

    md.update(p);
    md.update(s);
    md.update(p);
    byte[] b = md.digest();

    md.update(p);
    md.update(s);
    int n;
    for (n = p.length; n > BLOCK; n -= BLOCK) {
      md.update(b, 0, BLOCK);
    }
    md.update(b, 0, n);
    for (n = p.length; n > 0; n >>= 1) {
      if ((n & 1) != 0) {
        md.update(b, 0, BLOCK);
      } else {
        md.update(p);
      }
    }
    byte[] a = md.digest();

    for (int i = 0; i < p.length; i++) {
      md.update(p);
    }
    byte[] pBytes = repeat(md.digest(), p.length);

    int saltRepeats = 16 + (a[0] & 0xff);
    for (int i = 0; i < saltRepeats; i++) {
      md.update(s);
    }
    byte[] sBytes = repeat(md.digest(), s.length);

    byte[] c = a;
    for (int i = 0; i < rounds; i++) {
      boolean odd = (i & 1) != 0;
      md.update(odd ? pBytes : c);
      if (i % 3 != 0) {
        md.update(sBytes);
      }
      if (i % 7 != 0) {
        md.update(pBytes);
      }
      md.update(odd ? c : pBytes);
      c = md.digest();
    }
    Arrays.fill(pBytes, (byte) 0);
    return encode(c);
  }

  /** Convenience for text passwords, hashed as their UTF-8 bytes (what MySQL clients send). */
  public static String digest(String password, byte[] salt, int rounds) {
    return digest(password.getBytes(StandardCharsets.UTF_8), salt, rounds);
  }

  private static byte[] repeat(byte[] block, int length) {
    byte[] out = new byte[length];
    for (int at = 0; at < length; at += BLOCK) {
      System.arraycopy(block, 0, out, at, Math.min(BLOCK, length - at));
    }
    return out;
  }

  private static String encode(byte[] d) {
    StringBuilder out = new StringBuilder(DIGEST_CHARS);
    for (int[] g : GROUPS) {
      append(out, (d[g[0]] & 0xff) << 16 | (d[g[1]] & 0xff) << 8 | (d[g[2]] & 0xff), 4);
    }
    append(out, (d[31] & 0xff) << 8 | (d[30] & 0xff), 3);
    return out.toString();
  }

  private static void append(StringBuilder out, int w, int chars) {
    for (int i = 0; i < chars; i++) {
      out.append(ALPHABET[w & 0x3f]);
      w >>>= 6;
    }
  }

  /**
   * True if {@code b} is one of the 64 characters a digest is written with ({@code ./0-9A-Za-z}).
   */
  static boolean isDigestChar(byte b) {
    return b == '.'
        || b == '/'
        || (b >= '0' && b <= '9')
        || (b >= 'A' && b <= 'Z')
        || (b >= 'a' && b <= 'z');
  }

  static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
