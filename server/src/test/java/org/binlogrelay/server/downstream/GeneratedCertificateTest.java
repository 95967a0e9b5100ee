package org.binlogrelay.server.downstream;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.MessageDigest;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.interfaces.RSAPublicKey;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * The certificate the relay makes for itself when none is configured, and its fingerprint as the
 * log prints it.
 */
class GeneratedCertificateTest {
  private static final Instant NOW = Instant.parse("2026-11-28T10:00:00Z");

  @Test
  void selfSignedRsaServerCertificateValidFromADayAgoForTenYears() throws Exception {
    GeneratedCertificate generated = GeneratedCertificate.create(new SecureRandom(), NOW);
    X509Certificate c = generated.certificate();
    assertThat(c.getSubjectX500Principal().getName())
        .isEqualTo("CN=binlog-relay_Auto_Generated_Server_Certificate");
    assertThat(c.getIssuerX500Principal()).isEqualTo(c.getSubjectX500Principal());
    c.verify(c.getPublicKey());
    assertThat(c.getVersion()).isEqualTo(3);
    assertThat(c.getSigAlgName()).isEqualTo("SHA256withRSA");
    assertThat(((RSAPublicKey) c.getPublicKey()).getModulus().bitLength()).isEqualTo(2048);
    assertThat(generated.privateKey().getAlgorithm()).isEqualTo("RSA");
    assertThat(c.getNotBefore().toInstant()).isEqualTo(NOW.minus(Duration.ofDays(1)));
    assertThat(c.getNotAfter().toInstant()).isEqualTo(NOW.plus(Duration.ofDays(3650)));
    c.checkValidity(Date.from(NOW));
    assertThat(c.getSerialNumber().signum()).isPositive();
    assertThat(c.getSerialNumber().bitLength()).isLessThanOrEqualTo(128);
    boolean[] usage = c.getKeyUsage();
    assertThat(usage[0]).as("digitalSignature").isTrue();
    assertThat(usage[2]).as("keyEncipherment").isTrue();
    assertThat(usage[5]).as("keyCertSign").isFalse();
    assertThat(c.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.1");
    assertThat(c.getBasicConstraints()).as("not a CA").isEqualTo(-1);
    assertThat(c.getSubjectAlternativeNames()).isNull();
  }

  @Test
  void everyStartHasItsOwnKeyAndSerial() {
    SecureRandom random = new SecureRandom();
    GeneratedCertificate a = GeneratedCertificate.create(random, NOW);
    GeneratedCertificate b = GeneratedCertificate.create(random, NOW);
    assertThat(a.certificate().getPublicKey()).isNotEqualTo(b.certificate().getPublicKey());
    assertThat(a.certificate().getSerialNumber()).isNotEqualTo(b.certificate().getSerialNumber());
  }

  @Test
  void fingerprintIsTheDerSha256AsOpensslPrintsIt() throws Exception {
    GeneratedCertificate generated = GeneratedCertificate.create(new SecureRandom(), NOW);
    ServerTls tls = ServerTls.generated(generated);
    byte[] digest =
        MessageDigest.getInstance("SHA-256").digest(generated.certificate().getEncoded());
    assertThat(tls.certificateSha256()).isEqualTo(digest);
    assertThat(tls.generated()).isTrue();
    String hex = HexFormat.of().withUpperCase().formatHex(digest);
    StringBuilder colons = new StringBuilder();
    for (int i = 0; i < hex.length(); i += 2) {
      colons.append(i == 0 ? "" : ":").append(hex, i, i + 2);
    }
    assertThat(tls.fingerprint())
        .isEqualTo(colons.toString())
        .hasSize(95)
        .matches("([0-9A-F]{2}:){31}[0-9A-F]{2}");
  }
}
