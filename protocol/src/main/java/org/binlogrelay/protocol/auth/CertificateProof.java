package org.binlogrelay.protocol.auth;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;

/**
 * MariaDB's zero-configuration TLS proof (MariaDB 11.4+, MDEV-31855): after a login over TLS with a
 * password plugin that resists a man in the middle, the server proves that it holds the account's
 * password hash <em>and</em> the certificate the client saw, so that a client that could not verify
 * the certificate by a CA (a self-signed or generated one) may still trust it. The proof is the
 * info of the login's OK packet:
 *
 * <pre>
 *   u8      0x01                        the proof's kind: SHA-256
 *   string  HEX(SHA-256(passwordHash || scramble || SHA-256(certificate)))    64 upper-case hex digits
 * </pre>
 *
 * <p>where {@code passwordHash} is what the server stores ({@code mysql_native_password}:
 * SHA1(SHA1(password)), 20 bytes), {@code scramble} the 20-byte nonce of the greeting (MariaDB
 * Connector/J hashes the greeting's even after an auth switch; the relay, as MariaDB, sends the
 * same nonce again in a switch, so clients that take the switch's get the same bytes), and {@code
 * certificate} the DER encoding of the server's leaf certificate. A client computes the same from
 * the password it knows and the certificate of its TLS session and goes on only if they match.
 * Stateless and thread-safe.
 */
public final class CertificateProof {
  /** The first byte of the proof: the digest is SHA-256. */
  public static final int SHA256 = 0x01;

  private static final int SHA256_BYTES = 32;

  private CertificateProof() {}

  /**
   * The OK packet's info that proves {@code certificateSha256} to a client that knows the password
   * behind {@code passwordHash}.
   *
   * @param passwordHash the stored hash of the account's password, as the plugin defines it
   * @param scramble the handshake's nonce
   * @param certificateSha256 SHA-256 of the server's leaf certificate (DER), 32 bytes
   */
  public static String okInfo(byte[] passwordHash, byte[] scramble, byte[] certificateSha256) {
    if (certificateSha256.length != SHA256_BYTES) {
      throw new IllegalArgumentException(
          "certificate digest of "
              + certificateSha256.length
              + " bytes, expected a"
              + " SHA-256 digest of "
              + SHA256_BYTES);
    }
    MessageDigest sha256 = sha256();
    sha256.update(passwordHash);
    sha256.update(scramble);
    sha256.update(certificateSha256);
    return (char) SHA256 + HexFormat.of().formatHex(sha256.digest()).toUpperCase(Locale.ROOT);
  }

  /** SHA-256 of {@code der}, a certificate's encoding: what the proof binds. */
  public static byte[] certificateDigest(byte[] der) {
    return sha256().digest(der);
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
