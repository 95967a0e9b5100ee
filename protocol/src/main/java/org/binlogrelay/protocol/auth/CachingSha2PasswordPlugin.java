package org.binlogrelay.protocol.auth;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import java.util.Objects;

/**
 * {@code caching_sha2_password}, server side, following MySQL's {@code
 * caching_sha2_password_authenticate} (sql/auth/sha2_password.cc):
 *
 * <pre>
 *   FAST      client: 32-byte scramble XOR(SHA256(pw), SHA256(SHA256(SHA256(pw)) + nonce)), or empty
 *             cached SHA256(SHA256(pw)) matches  -> AuthMoreData 0x03, then OK
 *             otherwise                          -> AuthMoreData 0x04 "perform full authentication"
 *   FULL      over TLS: the password and a NUL in clear text            -> verify
 *             plain TCP: 0x02 "request public key" -> AuthMoreData(PEM)  -> RSA
 *                        or the cipher text at once (client had the key) -> decrypt, verify
 *   RSA       cipher text of XOR(password + NUL, scramble)                -> decrypt, verify
 * </pre>
 *
 * Verifying is SHA-256-crypt against the stored {@link CachingSha2Hash}; on success the fast digest
 * is cached ({@link Sha2FastAuthCache}) so the next login of that account takes the fast path. An
 * empty first packet means "no password" and is refused with "using password: NO".
 *
 * <p>Thread-safe; the per-connection state lives in the returned {@link AuthExchange}.
 */
public final class CachingSha2PasswordPlugin implements AuthPlugin {
  static final byte REQUEST_PUBLIC_KEY = 0x02;
  static final byte FAST_AUTH_SUCCESS = 0x03;
  static final byte PERFORM_FULL_AUTHENTICATION = 0x04;
  private static final int SCRAMBLE_RESPONSE_BYTES = 32;

  private final RsaKeyPair keys;
  private final RsaKeyPair.Padding padding;
  private final Sha2FastAuthCache cache;

  /**
   * @param keys the RSA key pair for plain-TCP full authentication
   * @param padding what clients will use, given the version this server reports
   * @param cache the fast-path cache, shared by all connections
   */
  public CachingSha2PasswordPlugin(
      RsaKeyPair keys, RsaKeyPair.Padding padding, Sha2FastAuthCache cache) {
    this.keys = Objects.requireNonNull(keys, "keys");
    this.padding = Objects.requireNonNull(padding, "padding");
    this.cache = Objects.requireNonNull(cache, "cache");
  }

  @Override
  public String name() {
    return CachingSha2Hash.PLUGIN;
  }

  @Override
  public AuthExchange begin(AuthRequest request) {
    if (request.credential() != null && !(request.credential() instanceof CachingSha2Hash)) {
      throw new IllegalArgumentException(
          "caching_sha2_password cannot check a "
              + request.credential().pluginName()
              + " credential");
    }
    return new Exchange(request);
  }

  /** The per-connection state machine. */
  private final class Exchange implements AuthExchange {
    private enum State {
      FAST,
      FULL,
      RSA,
      DONE
    }

    private final String account;
    private final CachingSha2Hash hash;
    private final byte[] scramble;
    private final boolean secure;
    private State state = State.FAST;

    Exchange(AuthRequest request) {
      this.account = request.accountKey();
      this.hash = (CachingSha2Hash) request.credential();
      this.scramble = request.scramble();
      this.secure = request.secureTransport();
    }

    @Override
    public AuthStep next(byte[] packet) {
      switch (state) {
        case FAST:
          return fast(packet);
        case FULL:
          return full(packet);
        case RSA:
          return rsa(packet);
        default:
          throw new IllegalStateException("caching_sha2_password exchange already finished");
      }
    }

    private AuthStep fast(byte[] packet) {
      if (packet.length == 0 || (packet.length == 1 && packet[0] == 0)) {
        return reject(false, "no password sent");
      }
      if (packet.length != SCRAMBLE_RESPONSE_BYTES) {
        return reject(true, "scramble response of " + packet.length + " bytes, expected 32");
      }
      byte[] cached = hash == null ? null : cache.get(account, hash);
      if (cached != null && CachingSha2Hash.verifyScramble(cached, scramble, packet)) {
        state = State.DONE;
        return new AuthStep.Accept(new byte[] {FAST_AUTH_SUCCESS});
      }
      state = State.FULL;
      return new AuthStep.MoreData(new byte[] {PERFORM_FULL_AUTHENTICATION});
    }

    private AuthStep full(byte[] packet) {
      if (packet.length == 0) {
        return reject(true, "empty packet where the password was expected");
      }
      if (secure) {
        // The client sends the password and a NUL; MySQL drops the last byte whatever it is.
        return verify(Arrays.copyOf(packet, packet.length - 1));
      }
      if (packet.length == 1 && packet[0] == REQUEST_PUBLIC_KEY) {
        state = State.RSA;
        return new AuthStep.MoreData(keys.publicKeyPem().getBytes(StandardCharsets.US_ASCII));
      }
      return rsa(packet);
    }

    private AuthStep rsa(byte[] packet) {
      if (packet.length != keys.cipherLength()) {
        return reject(
            true,
            "RSA cipher text of " + packet.length + " bytes, expected " + keys.cipherLength());
      }
      byte[] plain;
      try {
        plain = keys.decrypt(packet, padding);
      } catch (GeneralSecurityException e) {
        return reject(true, "RSA decryption failed (" + padding + "): " + e.getMessage());
      }
      for (int i = 0; i < plain.length; i++) {
        plain[i] ^= scramble[i % scramble.length];
      }
      int end = 0;
      while (end < plain.length && plain[end] != 0) {
        end++;
      }
      byte[] password = Arrays.copyOf(plain, end);
      Arrays.fill(plain, (byte) 0);
      if (password.length == 0) {
        return reject(true, "empty password in the RSA cipher text");
      }
      return verify(password);
    }

    private AuthStep verify(byte[] password) {
      try {
        if (hash == null) {
          return reject(true, "unknown account");
        }
        if (!hash.verifyPassword(password)) {
          return reject(true, "wrong password (full authentication)");
        }
        cache.put(account, hash, CachingSha2Hash.fastDigest(password));
        state = State.DONE;
        return AuthStep.Accept.plain();
      } finally {
        Arrays.fill(password, (byte) 0);
      }
    }

    private AuthStep reject(boolean passwordUsed, String reason) {
      state = State.DONE;
      return new AuthStep.Reject(passwordUsed, reason);
    }
  }
}
