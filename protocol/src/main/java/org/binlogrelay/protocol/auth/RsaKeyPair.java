package org.binlogrelay.protocol.auth;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.MGF1ParameterSpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.RSAPublicKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import java.util.Objects;
import javax.crypto.Cipher;
import javax.crypto.spec.OAEPParameterSpec;
import javax.crypto.spec.PSource;

/**
 * The RSA key pair caching_sha2_password uses when a client sends its password over plain TCP: the
 * client asks for the public key (it goes out in PEM, as MySQL's {@code
 * caching_sha2_password_public_key_path} file holds it), XORs the NUL-terminated password with the
 * scramble, encrypts it and the server decrypts it here.
 *
 * <p>Padding: MySQL clients use PKCS#1 OAEP with SHA-1 and MGF1-SHA-1 against servers from 8.0.5
 * on, and PKCS#1 v1.5 against older ones; {@link Padding} says which this server expects.
 *
 * <p>Immutable and thread-safe ({@link Cipher} instances are made per call).
 */
public final class RsaKeyPair {

  /** RSA padding of the encrypted password. */
  public enum Padding {
    /**
     * RSA/ECB/OAEPWithSHA-1AndMGF1Padding: what MySQL clients send to servers reporting 8.0.5 or
     * later.
     */
    OAEP_SHA1,
    /** RSA/ECB/PKCS1Padding: what MySQL clients send to servers reporting an older version. */
    PKCS1_V15
  }

  private final PrivateKey privateKey;
  private final RSAPublicKey publicKey;

  private RsaKeyPair(PrivateKey privateKey, RSAPublicKey publicKey) {
    this.privateKey = Objects.requireNonNull(privateKey);
    this.publicKey = Objects.requireNonNull(publicKey);
  }

  /** A fresh key pair, as MySQL generates one at startup when none is configured (2048 bits). */
  public static RsaKeyPair generate(int bits, SecureRandom random) {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
      generator.initialize(bits, random);
      KeyPair pair = generator.generateKeyPair();
      return new RsaKeyPair(pair.getPrivate(), (RSAPublicKey) pair.getPublic());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot generate a " + bits + "-bit RSA key pair", e);
    }
  }

  /**
   * Reads a private key in PEM, either PKCS#8 ({@code BEGIN PRIVATE KEY}) or PKCS#1 ({@code BEGIN
   * RSA PRIVATE KEY}, what {@code openssl genrsa} and MySQL write), and derives the public key.
   */
  public static RsaKeyPair fromPrivateKeyPem(String pem) {
    try {
      byte[] der;
      if (pem.contains("-----BEGIN PRIVATE KEY-----")) {
        der = Pem.decode(pem, "PRIVATE KEY");
      } else if (pem.contains("-----BEGIN RSA PRIVATE KEY-----")) {
        der = Pem.pkcs1ToPkcs8(Pem.decode(pem, "RSA PRIVATE KEY"));
      } else {
        throw new IllegalArgumentException(
            "RSA private key: expected PEM with BEGIN PRIVATE KEY or BEGIN RSA PRIVATE"
                + " KEY (an encrypted key is not supported)");
      }
      KeyFactory factory = KeyFactory.getInstance("RSA");
      PrivateKey key = factory.generatePrivate(new PKCS8EncodedKeySpec(der));
      if (!(key instanceof RSAPrivateCrtKey crt)) {
        throw new IllegalArgumentException(
            "RSA private key lacks the public exponent (not a CRT key)");
      }
      RSAPublicKey pub =
          (RSAPublicKey)
              factory.generatePublic(
                  new RSAPublicKeySpec(crt.getModulus(), crt.getPublicExponent()));
      return new RsaKeyPair(key, pub);
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException(
          "RSA private key: not a valid RSA key: " + e.getMessage(), e);
    }
  }

  /**
   * The public key as PEM (SubjectPublicKeyInfo, 64-character lines), what the server sends on
   * request.
   */
  public String publicKeyPem() {
    return Pem.encode("PUBLIC KEY", publicKey.getEncoded());
  }

  /** Bytes of a cipher text: the modulus length. */
  public int cipherLength() {
    return (publicKey.getModulus().bitLength() + 7) / 8;
  }

  /** Decrypts one block; {@link GeneralSecurityException} on bad padding or length. */
  public byte[] decrypt(byte[] cipherText, Padding padding) throws GeneralSecurityException {
    Cipher cipher;
    if (padding == Padding.OAEP_SHA1) {
      cipher = Cipher.getInstance("RSA/ECB/OAEPPadding");
      cipher.init(Cipher.DECRYPT_MODE, privateKey, oaepSha1());
    } else {
      cipher = Cipher.getInstance("RSA/ECB/PKCS1Padding");
      cipher.init(Cipher.DECRYPT_MODE, privateKey);
    }
    return cipher.doFinal(cipherText);
  }

  /** Encrypts as a client does (for tests and test clients). */
  public static byte[] encrypt(String publicKeyPem, byte[] plain, Padding padding)
      throws GeneralSecurityException {
    byte[] der = Pem.decode(publicKeyPem, "PUBLIC KEY");
    PublicKey key = KeyFactory.getInstance("RSA").generatePublic(new X509EncodedKeySpec(der));
    Cipher cipher;
    if (padding == Padding.OAEP_SHA1) {
      cipher = Cipher.getInstance("RSA/ECB/OAEPPadding");
      cipher.init(Cipher.ENCRYPT_MODE, key, oaepSha1());
    } else {
      cipher = Cipher.getInstance("RSA/ECB/PKCS1Padding");
      cipher.init(Cipher.ENCRYPT_MODE, key);
    }
    return cipher.doFinal(plain);
  }

  private static OAEPParameterSpec oaepSha1() {
    return new OAEPParameterSpec(
        "SHA-1", "MGF1", MGF1ParameterSpec.SHA1, PSource.PSpecified.DEFAULT);
  }

  /** PEM armour and the one DER wrapping needed to read PKCS#1 keys. */
  static final class Pem {
    private Pem() {}

    static String encode(String type, byte[] der) {
      String body =
          Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
      return "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n";
    }

    static byte[] decode(String pem, String type) {
      String begin = "-----BEGIN " + type + "-----";
      String end = "-----END " + type + "-----";
      int from = pem.indexOf(begin);
      int to = pem.indexOf(end);
      if (from < 0 || to < from) {
        throw new IllegalArgumentException("PEM: no " + begin + " ... " + end + " block");
      }
      String body = pem.substring(from + begin.length(), to);
      if (body.contains(":")) {
        throw new IllegalArgumentException(
            "PEM: " + type + " has headers (encrypted?); only unencrypted keys are" + " supported");
      }
      return Base64.getMimeDecoder().decode(body);
    }

    /**
     * PrivateKeyInfo ::= SEQUENCE { INTEGER 0, AlgorithmIdentifier rsaEncryption, OCTET STRING
     * pkcs1 }.
     */
    static byte[] pkcs1ToPkcs8(byte[] pkcs1) {
      byte[] version = {0x02, 0x01, 0x00};
      byte[] algorithm = {
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
      byte[] octets = tlv(0x04, pkcs1);
      byte[] content = new byte[version.length + algorithm.length + octets.length];
      System.arraycopy(version, 0, content, 0, version.length);
      System.arraycopy(algorithm, 0, content, version.length, algorithm.length);
      System.arraycopy(octets, 0, content, version.length + algorithm.length, octets.length);
      return tlv(0x30, content);
    }

    private static byte[] tlv(int tag, byte[] value) {
      int n = value.length < 0x80 ? 0 : value.length < 0x100 ? 1 : value.length < 0x10000 ? 2 : 3;
      byte[] out = new byte[2 + n + value.length];
      out[0] = (byte) tag;
      if (n == 0) {
        out[1] = (byte) value.length;
      } else {
        out[1] = (byte) (0x80 | n);
        for (int i = 0; i < n; i++) {
          out[2 + i] = (byte) (value.length >>> (8 * (n - 1 - i)));
        }
      }
      System.arraycopy(value, 0, out, 2 + n, value.length);
      return out;
    }
  }
}
