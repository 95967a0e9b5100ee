package org.binlogrelay.protocol.auth;

import java.util.Optional;

/**
 * {@code mysql_native_password}: one round trip. The client's response to the scramble is 20 bytes
 * (or empty for "no password", which no account here has); it is checked against the stored {@link
 * NativePasswordHash}. A man in the middle cannot relay it to another server without the hash, so
 * MariaDB 11.4+ clients take its {@link CertificateProof} (over the stored SHA1(SHA1(password))) in
 * place of a CA. Stateless and thread-safe.
 */
public final class NativePasswordPlugin implements AuthPlugin {

  @Override
  public String name() {
    return NativePasswordHash.PLUGIN;
  }

  @Override
  public Optional<String> certificateProof(
      Credential credential, byte[] scramble, byte[] certificateSha256) {
    if (!(credential instanceof NativePasswordHash hash)) {
      throw new IllegalArgumentException(
          "mysql_native_password has no proof for a "
              + (credential == null ? "missing" : credential.pluginName())
              + " credential");
    }
    return Optional.of(CertificateProof.okInfo(hash.stage2(), scramble, certificateSha256));
  }

  @Override
  public AuthExchange begin(AuthRequest request) {
    if (request.credential() != null && !(request.credential() instanceof NativePasswordHash)) {
      throw new IllegalArgumentException(
          "mysql_native_password cannot check a "
              + request.credential().pluginName()
              + " credential");
    }
    NativePasswordHash hash = (NativePasswordHash) request.credential();
    byte[] scramble = request.scramble();
    return new AuthExchange() {
      private boolean done;

      @Override
      public AuthStep next(byte[] response) {
        if (done) {
          throw new IllegalStateException("mysql_native_password exchange already finished");
        }
        done = true;
        if (response.length == 0) {
          return new AuthStep.Reject(false, "no password sent");
        }
        if (hash == null) {
          return new AuthStep.Reject(true, "unknown account");
        }
        if (hash.verifyScramble(scramble, response)) {
          return AuthStep.Accept.plain();
        }
        return new AuthStep.Reject(
            true,
            response.length == 20
                ? "wrong password"
                : "scramble response of " + response.length + " bytes, expected 20");
      }
    };
  }
}
