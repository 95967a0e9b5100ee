package org.binlogrelay.server.downstream;

import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.Objects;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A self-signed TLS server certificate and its private key, made in memory when the relay starts
 * without {@code --ssl-cert} (as MySQL's {@code auto_generate_certs} and MariaDB 11.4+'s
 * zero-configuration TLS do). The key is never written anywhere; the certificate lives as long as
 * the process, so its fingerprint changes at each start.
 *
 * <p>RSA 2048 with SHA-256, as MySQL's generated certificates, because every TLS stack a replica
 * may use accepts it; subject and issuer {@value #SUBJECT}; valid from a day before {@code now} (a
 * replica whose clock is behind must not see it as not yet valid) for ten years (MySQL's generated
 * certificates' span); key usage for a TLS server. No subject alternative name: a client that
 * checks the host name cannot trust it anyway, and MariaDB 11.4+ clients trust it by the {@link
 * org.binlogrelay.protocol.auth.CertificateProof} instead.
 *
 * <p>X.509 encoding is BouncyCastle's (the JDK has no public API for making certificates).
 * Immutable and thread-safe.
 *
 * @param certificate the self-signed certificate
 * @param privateKey its key
 */
record GeneratedCertificate(X509Certificate certificate, PrivateKey privateKey) {
  static final String SUBJECT = "CN=binlog-relay_Auto_Generated_Server_Certificate";
  static final Duration VALIDITY = Duration.ofDays(3650);
  private static final Duration BACKDATED = Duration.ofDays(1);
  private static final int RSA_BITS = 2048;

  GeneratedCertificate {
    Objects.requireNonNull(certificate, "certificate");
    Objects.requireNonNull(privateKey, "privateKey");
  }

  /** A new key pair and a certificate for it, valid from a day before {@code now}. */
  static GeneratedCertificate create(SecureRandom random, Instant now) {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
      generator.initialize(RSA_BITS, random);
      KeyPair keys = generator.generateKeyPair();
      X500Name name = new X500Name(SUBJECT);
      // A positive serial of up to 16 random bytes (RFC 5280: at most 20 octets, unique per
      // issuer).
      BigInteger serial = new BigInteger(127, random).add(BigInteger.ONE);
      X509v3CertificateBuilder builder =
          new JcaX509v3CertificateBuilder(
                  name,
                  serial,
                  Date.from(now.minus(BACKDATED)),
                  Date.from(now.plus(VALIDITY)),
                  name,
                  keys.getPublic())
              .addExtension(
                  Extension.keyUsage,
                  true,
                  new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment))
              .addExtension(
                  Extension.extendedKeyUsage,
                  false,
                  new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth))
              .addExtension(
                  Extension.subjectKeyIdentifier,
                  false,
                  new JcaX509ExtensionUtils().createSubjectKeyIdentifier(keys.getPublic()));
      X509Certificate certificate =
          new JcaX509CertificateConverter()
              .getCertificate(
                  builder.build(
                      new JcaContentSignerBuilder("SHA256withRSA")
                          .setSecureRandom(random)
                          .build(keys.getPrivate())));
      certificate.verify(keys.getPublic());
      return new GeneratedCertificate(certificate, keys.getPrivate());
    } catch (GeneralSecurityException | OperatorCreationException | CertIOException e) {
      throw new IllegalStateException(
          "Cannot generate a TLS certificate for replicas: "
              + e.getMessage()
              + " (give --ssl-cert and --ssl-key instead)",
          e);
    }
  }
}
