package org.binlogrelay.e2e.downstream;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.binlogrelay.e2e.process.ChildProcesses;
import org.binlogrelay.e2e.servers.Provisioning;

/**
 * A self-signed certificate and its key in PEM (made once per JVM with the {@code openssl} command
 * line, no library), for the relay's TLS in tests and for the TLS-terminating {@link
 * TranscriptProxy}; plus the SSL contexts tests need. Thread-safe.
 */
final class TestCertificates {

  private static TestCertificates shared;

  private final Path certificate;
  private final Path privateKey;

  private TestCertificates(Path certificate, Path privateKey) {
    this.certificate = certificate;
    this.privateKey = privateKey;
  }

  static synchronized TestCertificates shared() {
    if (shared == null) {
      try {
        Path dir = Files.createTempDirectory("binlog-relay-tls-");
        dir.toFile().deleteOnExit();
        Path cert = dir.resolve("cert.pem");
        Path key = dir.resolve("key.pem");
        ChildProcesses.run(
                List.of(
                    Provisioning.executable("openssl", "openssl").toString(),
                    "req",
                    "-x509",
                    "-newkey",
                    "rsa:2048",
                    "-nodes",
                    "-keyout",
                    key.toString(),
                    "-out",
                    cert.toString(),
                    "-days",
                    "2",
                    "-subj",
                    "/CN=binlog-relay-test"),
                dir,
                dir.resolve("openssl.out"),
                null,
                Duration.ofSeconds(60))
            .requireSuccess("openssl req -x509");
        cert.toFile().deleteOnExit();
        key.toFile().deleteOnExit();
        dir.resolve("openssl.out").toFile().deleteOnExit();
        shared = new TestCertificates(cert, key);
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot make a test certificate", e);
      }
    }
    return shared;
  }

  /** The certificate, PEM. */
  Path certificatePem() {
    return certificate;
  }

  /** The unencrypted PKCS#8 private key, PEM ({@code BEGIN PRIVATE KEY}). */
  Path privateKeyPem() {
    return privateKey;
  }

  /** A server-side context presenting this certificate. */
  SSLContext serverContext() {
    try {
      String pem = Files.readString(privateKey);
      String body = pem.replaceAll("-----(BEGIN|END) PRIVATE KEY-----", "").replaceAll("\\s", "");
      PrivateKey key =
          KeyFactory.getInstance("RSA")
              .generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(body)));
      Certificate cert;
      try (InputStream in = Files.newInputStream(certificate)) {
        cert = CertificateFactory.getInstance("X.509").generateCertificate(in);
      }
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      store.setKeyEntry("relay", key, new char[0], new Certificate[] {cert});
      KeyManagerFactory kmf =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(store, new char[0]);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(kmf.getKeyManagers(), null, null);
      return context;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("Cannot build a TLS server context from " + certificate, e);
    }
  }

  /** A client-side context that trusts any server certificate (test servers are self-signed). */
  static SSLContext trustAllClientContext() {
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(
          null,
          new TrustManager[] {
            new X509TrustManager() {
              @Override
              public void checkClientTrusted(X509Certificate[] chain, String authType) {}

              @Override
              public void checkServerTrusted(X509Certificate[] chain, String authType) {}

              @Override
              public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
              }
            }
          },
          null);
      return context;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }
}
