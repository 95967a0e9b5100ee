package org.binlogrelay.server.upstream;

import java.nio.file.Path;
import java.util.Objects;

/**
 * TLS to the primary: the mode and the PEM files. The files are read at every connection, so
 * renewed certificates are picked up without a restart. Immutable.
 *
 * @param mode what the relay requires
 * @param ca the CA certificate(s) the primary's chain must lead to (PEM, one or more certificates);
 *     for the verifying modes, {@code null} means the JDK's default trust store
 * @param cert the relay's client certificate chain (PEM), for primaries that require X509; {@code
 *     null} if none
 * @param key the private key of {@code cert}: PEM, PKCS#8 ({@code BEGIN PRIVATE KEY}) or PKCS#1 RSA
 *     ({@code BEGIN RSA PRIVATE KEY}), unencrypted
 */
public record TlsConfig(TlsMode mode, Path ca, Path cert, Path key) {
  public static final TlsConfig DISABLED = new TlsConfig(TlsMode.DISABLED, null, null, null);

  public TlsConfig {
    Objects.requireNonNull(mode, "mode");
    if ((cert == null) != (key == null)) {
      throw new IllegalArgumentException(
          "a client certificate needs its key and a key its certificate (cert "
              + cert
              + ", key "
              + key
              + ")");
    }
    if (mode == TlsMode.DISABLED && (ca != null || cert != null)) {
      throw new IllegalArgumentException(
          "TLS mode DISABLED with CA or certificate files: choose PREFERRED,"
              + " REQUIRED, VERIFY_CA or VERIFY_IDENTITY to use them");
    }
  }

  public static TlsConfig of(TlsMode mode) {
    return new TlsConfig(mode, null, null, null);
  }

  /** {@link TlsMode#VERIFY_CA} or {@link TlsMode#VERIFY_IDENTITY} against {@code ca}. */
  public static TlsConfig verify(TlsMode mode, Path ca) {
    if (!mode.verifiesCertificate()) {
      throw new IllegalArgumentException(
          mode + " does not check certificates; use VERIFY_CA or VERIFY_IDENTITY");
    }
    return new TlsConfig(mode, Objects.requireNonNull(ca, "ca"), null, null);
  }

  /** The same with a client certificate and its key. */
  public TlsConfig withClientCertificate(Path certificate, Path privateKey) {
    return new TlsConfig(
        mode,
        ca,
        Objects.requireNonNull(certificate, "certificate"),
        Objects.requireNonNull(privateKey, "privateKey"));
  }

  @Override
  public String toString() {
    return "TLS " + mode + (ca != null ? " ca=" + ca : "") + (cert != null ? " cert=" + cert : "");
  }
}
