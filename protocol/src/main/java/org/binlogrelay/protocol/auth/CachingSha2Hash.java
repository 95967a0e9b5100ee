package org.binlogrelay.protocol.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Random;

/**
 * A {@code caching_sha2_password} credential in MySQL's {@code mysql.user.authentication_string}
 * format (sql/auth/sha2_password.cc, {@code Caching_sha2_password::serialize}):
 *
 * <pre>
 *   $A$        digest type: A = SHA-256
 *   NNN$       rounds / 1000, three upper-case hex digits ("005" = 5,000; MySQL 9.7 writes "00A" = 10,000)
 *   salt       20 bytes, each 0x01..0x7F except '$' (MySQL's generate_user_salt: often unprintable)
 *   digest     43 characters: SHA-256-crypt of (password, salt, rounds), see {@link Sha256Crypt}
 * </pre>
 *
 * 70 characters in all. Because MySQL's salts hold control characters, the configuration also
 * accepts the hex form {@code SHOW CREATE USER} prints ({@code 0x2441...}, 140 hex digits); hashes
 * made here use printable salts and print as text.
 *
 * <p>Verifying a password costs {@code rounds} SHA-256 computations; that is the
 * full-authentication path. The fast path compares a client scramble against
 * SHA256(SHA256(password)), which the server learns only after one successful full authentication
 * ({@link Sha2FastAuthCache}). Immutable and thread-safe.
 */
public final class CachingSha2Hash implements Credential {
  public static final String PLUGIN = "caching_sha2_password";

  /** The rounds MySQL 9.7 uses by default ({@code caching_sha2_password_digest_rounds}). */
  public static final int DEFAULT_ROUNDS = 10_000;

  /** MySQL refuses longer passwords (MAX_PLAINTEXT_LENGTH). */
  public static final int MAX_PASSWORD_BYTES = 256;

  static final int SALT_BYTES = 20;
  private static final int LENGTH = 3 + 4 + SALT_BYTES + Sha256Crypt.DIGEST_CHARS;
  private static final char[] SALT_ALPHABET =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789./".toCharArray();

  private final int rounds;
  private final byte[] salt;
  private final byte[] digest;

  private CachingSha2Hash(int rounds, byte[] salt, byte[] digest) {
    this.rounds = rounds;
    this.salt = salt;
    this.digest = digest;
  }

  /** Parses the 70-character {@code $A$} form or the {@code 0x} hex form of it. */
  public static CachingSha2Hash parse(String stored) {
    byte[] raw;
    if (stored.startsWith("0x") || stored.startsWith("0X")) {
      if (stored.length() != 2 + 2 * LENGTH) {
        throw new IllegalArgumentException(
            "caching_sha2_password hash in hex must be 0x and "
                + 2 * LENGTH
                + " hex digits, got "
                + (stored.length() - 2));
      }
      try {
        raw = HexFormat.of().parseHex(stored, 2, stored.length());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "caching_sha2_password hash: '0x' must be followed by hex digits only", e);
      }
    } else {
      raw = new byte[stored.length()];
      for (int i = 0; i < raw.length; i++) {
        char c = stored.charAt(i);
        if (c > 0x7f) {
          throw new IllegalArgumentException(
              "caching_sha2_password hash has a non-ASCII character at " + i);
        }
        raw[i] = (byte) c;
      }
    }
    return parse(raw);
  }

  private static CachingSha2Hash parse(byte[] raw) {
    if (raw.length != LENGTH) {
      throw new IllegalArgumentException(
          "caching_sha2_password hash must be "
              + LENGTH
              + " bytes ($A$NNN$, 20 salt"
              + " bytes, 43 digest characters), got "
              + raw.length);
    }
    if (raw[0] != '$' || raw[1] != 'A' || raw[2] != '$' || raw[6] != '$') {
      throw new IllegalArgumentException(
          "caching_sha2_password hash must start with $A$NNN$ (SHA-256)");
    }
    int thousands = 0;
    for (int i = 3; i < 6; i++) {
      int digit =
          Character.digit(
              raw[i], 16); // not Integer.parseInt, which takes a sign: "-01" is not a count
      if (digit < 0) {
        throw new IllegalArgumentException(
            "caching_sha2_password hash: rounds field '"
                + new String(raw, 3, 3, StandardCharsets.US_ASCII)
                + "' is not three hex digits");
      }
      thousands = thousands * 16 + digit;
    }
    if (thousands == 0) {
      throw new IllegalArgumentException(
          "caching_sha2_password hash: rounds field 000 means no rounds");
    }
    byte[] salt = Arrays.copyOfRange(raw, 7, 7 + SALT_BYTES);
    for (byte b : salt) {
      if (b == 0 || b == '$' || b < 0) {
        throw new IllegalArgumentException(
            "caching_sha2_password hash: salt byte 0x"
                + Integer.toHexString(b & 0xff)
                + " is not allowed (MySQL salts are 0x01..0x7F without '$')");
      }
    }
    for (int i = 7 + SALT_BYTES; i < LENGTH; i++) {
      if (!Sha256Crypt.isDigestChar(raw[i])) {
        throw new IllegalArgumentException(
            "caching_sha2_password hash: digest byte 0x"
                + Integer.toHexString(raw[i] & 0xff)
                + " at "
                + i
                + " is not one of SHA-256-crypt's characters (./0-9A-Za-z)");
      }
    }
    byte[] digest = Arrays.copyOfRange(raw, 7 + SALT_BYTES, LENGTH);
    return new CachingSha2Hash(thousands * 1000, salt, digest);
  }

  /** A new hash of {@code password} with a printable random salt. */
  public static CachingSha2Hash create(String password, int rounds, Random random) {
    byte[] pw = password.getBytes(StandardCharsets.UTF_8);
    if (pw.length == 0 || pw.length > MAX_PASSWORD_BYTES) {
      throw new IllegalArgumentException(
          "password must be 1.." + MAX_PASSWORD_BYTES + " bytes, got " + pw.length);
    }
    if (rounds % 1000 != 0 || rounds < Sha256Crypt.MIN_ROUNDS || rounds > Sha256Crypt.MAX_ROUNDS) {
      throw new IllegalArgumentException(
          "rounds must be a multiple of 1000 in "
              + Sha256Crypt.MIN_ROUNDS
              + ".."
              + Sha256Crypt.MAX_ROUNDS
              + ", got "
              + rounds);
    }
    byte[] salt = new byte[SALT_BYTES];
    for (int i = 0; i < salt.length; i++) {
      salt[i] = (byte) SALT_ALPHABET[random.nextInt(SALT_ALPHABET.length)];
    }
    byte[] digest = Sha256Crypt.digest(pw, salt, rounds).getBytes(StandardCharsets.US_ASCII);
    return new CachingSha2Hash(rounds, salt, digest);
  }

  /**
   * True if {@code password} (the bytes the client sent, without NUL) hashes to this credential.
   */
  public boolean verifyPassword(byte[] password) {
    if (password.length > MAX_PASSWORD_BYTES) {
      return false;
    }
    byte[] candidate =
        Sha256Crypt.digest(password, salt, rounds).getBytes(StandardCharsets.US_ASCII);
    return MessageDigest.isEqual(candidate, digest);
  }

  /** SHA256(SHA256(password)): what the fast path compares scrambles against. */
  public static byte[] fastDigest(byte[] password) {
    MessageDigest sha256 = Sha256Crypt.sha256();
    return sha256.digest(sha256.digest(password));
  }

  /**
   * The fast-path check: the client sent {@code XOR(SHA256(pw), SHA256(SHA256(SHA256(pw)) +
   * nonce))}; with the cached {@code SHA256(SHA256(pw))} recover SHA256(pw) and check that it
   * hashes to the cached value.
   */
  public static boolean verifyScramble(byte[] cachedFastDigest, byte[] nonce, byte[] response) {
    if (response.length != 32) {
      return false;
    }
    MessageDigest sha256 = Sha256Crypt.sha256();
    sha256.update(cachedFastDigest);
    sha256.update(nonce);
    byte[] candidate = sha256.digest();
    for (int i = 0; i < candidate.length; i++) {
      candidate[i] ^= response[i];
    }
    return MessageDigest.isEqual(sha256.digest(candidate), cachedFastDigest);
  }

  /** What a client computes from the password for the fast path (for tests and test clients). */
  public static byte[] scramble(String password, byte[] nonce) {
    MessageDigest sha256 = Sha256Crypt.sha256();
    byte[] stage1 = sha256.digest(password.getBytes(StandardCharsets.UTF_8));
    byte[] stage2 = sha256.digest(stage1);
    sha256.update(stage2);
    sha256.update(nonce);
    byte[] out = sha256.digest();
    for (int i = 0; i < out.length; i++) {
      out[i] ^= stage1[i];
    }
    return out;
  }

  public int rounds() {
    return rounds;
  }

  @Override
  public String pluginName() {
    return PLUGIN;
  }

  @Override
  public String storedForm() {
    byte[] raw = new byte[LENGTH];
    String head = String.format(Locale.ROOT, "$A$%03X$", rounds / 1000);
    System.arraycopy(head.getBytes(StandardCharsets.US_ASCII), 0, raw, 0, 7);
    System.arraycopy(salt, 0, raw, 7, SALT_BYTES);
    System.arraycopy(digest, 0, raw, 7 + SALT_BYTES, digest.length);
    for (byte b : salt) {
      if (b < 0x21 || b > 0x7e) {
        return "0x" + HexFormat.of().formatHex(raw).toUpperCase(Locale.ROOT);
      }
    }
    return new String(raw, StandardCharsets.US_ASCII);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CachingSha2Hash h
        && rounds == h.rounds
        && Arrays.equals(salt, h.salt)
        && MessageDigest.isEqual(digest, h.digest);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(salt);
  }

  /** Does not print the hash. */
  @Override
  public String toString() {
    return "CachingSha2Hash[rounds=" + rounds + "]";
  }
}
