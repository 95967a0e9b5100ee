package org.binlogrelay.protocol.auth;

import java.util.Objects;

/**
 * What a plugin needs to authenticate one client.
 *
 * @param accountKey identifies the account (e.g. {@code repl@%}) in caches such as {@link
 *     Sha2FastAuthCache}
 * @param credential the account's stored credential, of the plugin's kind; null for an unknown
 *     account, which goes through the same exchange and is always rejected (so that a client cannot
 *     tell unknown accounts from wrong passwords)
 * @param scramble the 20-byte nonce the client was sent
 * @param secureTransport true when the connection is TLS: caching_sha2_password then takes the
 *     password in clear text instead of RSA-encrypted
 */
public record AuthRequest(
    String accountKey, Credential credential, byte[] scramble, boolean secureTransport) {
  public AuthRequest {
    Objects.requireNonNull(accountKey, "accountKey");
    scramble = scramble.clone();
  }

  @Override
  public byte[] scramble() {
    return scramble.clone();
  }
}
