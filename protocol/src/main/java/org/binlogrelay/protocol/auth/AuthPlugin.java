package org.binlogrelay.protocol.auth;

import java.util.Optional;

/**
 * A server-side authentication method, named as MySQL names it. One class per method: {@link
 * NativePasswordPlugin}, {@link CachingSha2PasswordPlugin}. Implementations are thread-safe; each
 * {@link #begin} returns a fresh per-connection {@link AuthExchange}.
 */
public interface AuthPlugin {

  /** The plugin name on the wire, e.g. {@code caching_sha2_password}. */
  String name();

  /**
   * The data sent with the scramble in the handshake or an auth switch: the 20-byte scramble and a
   * NUL.
   */
  default byte[] initialData(byte[] scramble) {
    byte[] data = new byte[scramble.length + 1];
    System.arraycopy(scramble, 0, data, 0, scramble.length);
    return data;
  }

  /**
   * Starts authenticating one client; the request's credential is null or of this plugin's kind.
   */
  AuthExchange begin(AuthRequest request);

  /**
   * The {@link CertificateProof} a MariaDB 11.4+ server sends in the OK after a login over TLS with
   * this plugin, or empty for a plugin that has none (one whose exchange a man in the middle could
   * relay, such as caching_sha2_password with its clear-text password over TLS).
   *
   * @param credential the account's stored credential, of this plugin's kind
   * @param scramble the handshake's nonce
   * @param certificateSha256 SHA-256 of the server's leaf certificate (DER)
   */
  default Optional<String> certificateProof(
      Credential credential, byte[] scramble, byte[] certificateSha256) {
    return Optional.empty();
  }
}
