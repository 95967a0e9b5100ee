package org.binlogrelay.server.downstream;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.HexFormat;
import javax.net.ssl.SSLException;
import org.binlogrelay.protocol.auth.CertificateProof;

/**
 * The TLS the downstream server offers: Netty's server context and the leaf certificate it
 * presents, whose SHA-256 a login over TLS proves to MariaDB 11.4+ clients ({@link
 * CertificateProof}). The certificate is the configured one ({@code --ssl-cert}, {@code --ssl-key})
 * or, without one, a {@link GeneratedCertificate} made at start unless that is turned off.
 * Immutable and thread-safe.
 */
final class ServerTls {
  private static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

  private final SslContext context;
  private final X509Certificate certificate;
  private final byte[] certificateSha256;
  private final boolean generated;

  private ServerTls(SslContext context, X509Certificate certificate, boolean generated) {
    this.context = context;
    this.certificate = certificate;
    this.generated = generated;
    try {
      this.certificateSha256 = CertificateProof.certificateDigest(certificate.getEncoded());
    } catch (CertificateEncodingException e) {
      throw new IllegalArgumentException(
          "TLS certificate "
              + certificate.getSubjectX500Principal()
              + " cannot be encoded: "
              + e.getMessage(),
          e);
    }
  }

  /**
   * The TLS {@code config} asks for: its files, else a generated certificate if allowed, else none
   * (null). Throws {@link IllegalArgumentException} naming the files that cannot be loaded.
   */
  static ServerTls of(ReplicaServerConfig config, SecureRandom random, Instant now) {
    if (config.tls() != null) {
      return fromFiles(config.tls());
    }
    if (config.autoGenerateCertificate()) {
      return generated(GeneratedCertificate.create(random, now));
    }
    return null;
  }

  static ServerTls fromFiles(ReplicaServerConfig.TlsFiles files) {
    String what = "TLS certificate " + files.certificateChain() + " and key " + files.privateKey();
    try {
      SslContext context =
          SslContextBuilder.forServer(
                  files.certificateChain().toFile(), files.privateKey().toFile())
              .protocols(PROTOCOLS)
              .build();
      return new ServerTls(context, leaf(files), false);
    } catch (SSLException | IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "Cannot load "
              + what
              + " (PEM, key unencrypted PKCS#8 'BEGIN PRIVATE KEY'): "
              + e.getMessage(),
          e);
    }
  }

  static ServerTls generated(GeneratedCertificate generated) {
    try {
      SslContext context =
          SslContextBuilder.forServer(generated.privateKey(), generated.certificate())
              .protocols(PROTOCOLS)
              .build();
      return new ServerTls(context, generated.certificate(), true);
    } catch (SSLException e) {
      throw new IllegalStateException(
          "Cannot use the generated TLS certificate: " + e.getMessage(), e);
    }
  }

  /** The first certificate of the PEM chain: the one the server presents. */
  private static X509Certificate leaf(ReplicaServerConfig.TlsFiles files) {
    try (InputStream in = Files.newInputStream(files.certificateChain())) {
      Certificate first = CertificateFactory.getInstance("X.509").generateCertificate(in);
      if (!(first instanceof X509Certificate x509)) {
        throw new IllegalArgumentException(
            files.certificateChain() + " does not start with an X.509 certificate");
      }
      return x509;
    } catch (IOException | CertificateException e) {
      throw new IllegalArgumentException(files.certificateChain() + ": " + e.getMessage(), e);
    }
  }

  SslContext context() {
    return context;
  }

  X509Certificate certificate() {
    return certificate;
  }

  /** SHA-256 of the certificate's DER encoding (a copy). */
  byte[] certificateSha256() {
    return certificateSha256.clone();
  }

  /** True if the certificate was generated at start rather than configured. */
  boolean generated() {
    return generated;
  }

  /**
   * The SHA-256 fingerprint as {@code openssl x509 -fingerprint -sha256} prints it: {@code
   * AB:CD:...}.
   */
  String fingerprint() {
    return HexFormat.ofDelimiter(":").withUpperCase().formatHex(certificateSha256);
  }
}
