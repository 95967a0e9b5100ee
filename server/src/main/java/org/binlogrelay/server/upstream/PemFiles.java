package org.binlogrelay.server.upstream;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.binlogrelay.protocol.bytes.ByteWriter;

/**
 * Reads the PEM files MySQL and MariaDB use ({@code ca.pem}, {@code client-cert.pem}, {@code
 * client-key.pem}): certificates, and unencrypted private keys in PKCS#8 or, for RSA, PKCS#1 (what
 * {@code mysqld --initialize} and {@code openssl genrsa -traditional} write). The file names appear
 * in every error. Stateless.
 */
final class PemFiles {
  private static final Pattern BLOCK =
      Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----([A-Za-z0-9+/=\\s]*?)-----END \\1-----");

  /** DER of AlgorithmIdentifier { rsaEncryption, NULL }. */
  private static final byte[] RSA_ALGORITHM = {
    0x30,
    0x0d,
    0x06,
    0x09,
    0x2a,
    (byte) 0x86,
    0x48,
    (byte) 0x86,
    (byte) 0xf7,
    0x0d,
    0x01,
    0x01,
    0x01,
    0x05,
    0x00
  };

  private PemFiles() {}

  /** Every certificate in {@code file}, in order. */
  static List<X509Certificate> certificates(Path file) throws IOException {
    List<X509Certificate> out = new ArrayList<>();
    try {
      CertificateFactory factory = CertificateFactory.getInstance("X.509");
      for (byte[] der : blocks(file, "CERTIFICATE")) {
        out.add((X509Certificate) factory.generateCertificate(new ByteArrayInputStream(der)));
      }
    } catch (GeneralSecurityException e) {
      throw new IOException(
          "TLS: " + file + " holds a certificate the JDK cannot read: " + e.getMessage(), e);
    }
    if (out.isEmpty()) {
      throw new IOException(
          "TLS: " + file + " holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
    }
    return out;
  }

  /** The private key in {@code file}. */
  static PrivateKey privateKey(Path file) throws IOException {
    String text = Files.readString(file, StandardCharsets.US_ASCII);
    Matcher m = BLOCK.matcher(text);
    if (!m.find()) {
      throw new IOException("TLS: " + file + " holds no PEM private key");
    }
    String type = m.group(1);
    byte[] der = decode(m.group(2), file);
    byte[] pkcs8;
    switch (type) {
      case "PRIVATE KEY" -> pkcs8 = der;
      case "RSA PRIVATE KEY" -> pkcs8 = rsaPkcs1ToPkcs8(der);
      case "ENCRYPTED PRIVATE KEY" ->
          throw new IOException(
              "TLS: the key in "
                  + file
                  + " is encrypted; give the"
                  + " relay an unencrypted key (openssl pkcs8 -in KEY -nocrypt -out KEY.pem)");
      default ->
          throw new IOException(
              "TLS: "
                  + file
                  + " holds a "
                  + type
                  + "; the relay reads PKCS#8 (BEGIN"
                  + " PRIVATE KEY) and PKCS#1 RSA keys: convert with openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pem");
    }
    for (String algorithm : List.of("RSA", "EC", "Ed25519", "DSA")) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(pkcs8));
      } catch (GeneralSecurityException e) {
        // not this algorithm: try the next
      }
    }
    throw new IOException(
        "TLS: the private key in " + file + " is not an RSA, EC, Ed25519 or DSA key the JDK reads");
  }

  private static List<byte[]> blocks(Path file, String type) throws IOException {
    String text = Files.readString(file, StandardCharsets.US_ASCII);
    List<byte[]> out = new ArrayList<>();
    Matcher m = BLOCK.matcher(text);
    while (m.find()) {
      if (m.group(1).equals(type)) {
        out.add(decode(m.group(2), file));
      }
    }
    return out;
  }

  private static byte[] decode(String base64, Path file) throws IOException {
    try {
      return Base64.getMimeDecoder().decode(base64);
    } catch (IllegalArgumentException e) {
      throw new IOException(
          "TLS: " + file + " has a PEM block that is not base64: " + e.getMessage(), e);
    }
  }

  /** PrivateKeyInfo { version 0, rsaEncryption, OCTET STRING { RSAPrivateKey } }. */
  static byte[] rsaPkcs1ToPkcs8(byte[] pkcs1) {
    byte[] octets = derHeader(0x04, pkcs1.length);
    int inner = 3 + RSA_ALGORITHM.length + octets.length + pkcs1.length;
    return new ByteWriter()
        .bytes(derHeader(0x30, inner))
        .bytes(new byte[] {0x02, 0x01, 0x00})
        .bytes(RSA_ALGORITHM)
        .bytes(octets)
        .bytes(pkcs1)
        .toByteArray();
  }

  private static byte[] derHeader(int tag, int length) {
    if (length < 0x80) {
      return new byte[] {(byte) tag, (byte) length};
    }
    if (length < 0x100) {
      return new byte[] {(byte) tag, (byte) 0x81, (byte) length};
    }
    if (length < 0x10000) {
      return new byte[] {(byte) tag, (byte) 0x82, (byte) (length >> 8), (byte) length};
    }
    return new byte[] {
      (byte) tag, (byte) 0x83, (byte) (length >> 16), (byte) (length >> 8), (byte) length
    };
  }
}
