package org.binlogrelay.protocol.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * MariaDB's zero-configuration TLS proof, checked against vectors computed outside this code base
 * (Python's hashlib: {@code sha256(sha1(sha1(b'pw')) + bytes(range(1, 21)) + bytes(range(0xa0,
 * 0xc0)))}) and against a client's side of it, written here from the description (MariaDB
 * Connector/J's validateFingerPrint: the password's hash, the scramble, the certificate's SHA-256,
 * hashed and compared as upper-case hex after the 0x01).
 */
class CertificateProofTest {
  private static final byte[] SCRAMBLE = bytes(1, 20);
  private static final byte[] CERTIFICATE_SHA256 = bytes(0xa0, 32);

  @Test
  void knownVector() {
    NativePasswordHash hash = NativePasswordHash.of("pw");
    assertThat(hash.storedForm()).isEqualTo("*D821809F681A40A6E379B50D0463EFAE20BDD122");
    String info = CertificateProof.okInfo(hash.stage2(), SCRAMBLE, CERTIFICATE_SHA256);
    assertThat(info)
        .isEqualTo("\u0001" + "7ED8C415248FCDBBE8CF52D418A27DAC7B840C8358482F3E003A13AB3AA599FE");
    assertThat(info.getBytes(StandardCharsets.US_ASCII)).hasSize(65).startsWith(1);
  }

  @Test
  void certificateDigestIsSha256OfTheEncoding() {
    assertThat(
            HexFormat.of()
                .formatHex(
                    CertificateProof.certificateDigest(
                        "not really a certificate".getBytes(StandardCharsets.US_ASCII))))
        .isEqualTo("d6182255e5739d55fc9781759c7a823d4dff3d2b7d17949e7085ee7c0cc22acf");
  }

  @Test
  void nativePasswordPluginProvesWithTheStoredHashAndAClientWithThePasswordAgrees()
      throws Exception {
    Random random = new Random(7);
    for (String password : new String[] {"pw", "repl-pass", "pässwörd ☃"}) {
      byte[] scramble = Scrambles.generate(random);
      byte[] certificate = new byte[32];
      random.nextBytes(certificate);
      NativePasswordHash stored =
          NativePasswordHash.parse(NativePasswordHash.of(password).storedForm());
      String info =
          new NativePasswordPlugin().certificateProof(stored, scramble, certificate).orElseThrow();
      assertThat(clientAccepts(info, password, scramble, certificate)).as(password).isTrue();
      assertThat(clientAccepts(info, password + "x", scramble, certificate))
          .as("another password")
          .isFalse();
      byte[] otherCertificate = certificate.clone();
      otherCertificate[31] ^= 1;
      assertThat(clientAccepts(info, password, scramble, otherCertificate))
          .as("a man in the middle's certificate")
          .isFalse();
    }
  }

  @Test
  void cachingSha2HasNoProofAndWrongInputsAreRefused() {
    CachingSha2Hash sha2 = CachingSha2Hash.parse(CredentialTest.MYSQL_97_REPL);
    assertThat(
            new CachingSha2PasswordPlugin(
                    RsaKeyPair.generate(2048, new SecureRandom()),
                    RsaKeyPair.Padding.OAEP_SHA1,
                    new Sha2FastAuthCache(1))
                .certificateProof(sha2, SCRAMBLE, CERTIFICATE_SHA256))
        .isEmpty();
    assertThatThrownBy(
            () -> new NativePasswordPlugin().certificateProof(sha2, SCRAMBLE, CERTIFICATE_SHA256))
        .hasMessageContaining("caching_sha2_password credential");
    assertThatThrownBy(() -> CertificateProof.okInfo(new byte[20], SCRAMBLE, new byte[20]))
        .hasMessageContaining("20 bytes");
  }

  /**
   * The client's check: SHA-256 over SHA1(SHA1(password)), the scramble and the certificate's
   * digest.
   */
  private static boolean clientAccepts(
      String info, String password, byte[] scramble, byte[] certificateSha256) throws Exception {
    byte[] raw = info.getBytes(StandardCharsets.US_ASCII);
    if (raw.length == 0 || raw[0] != 0x01) {
      return false;
    }
    MessageDigest sha1 = MessageDigest.getInstance("SHA-1");
    byte[] hash = sha1.digest(sha1.digest(password.getBytes(StandardCharsets.UTF_8)));
    MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
    sha256.update(hash);
    sha256.update(scramble);
    sha256.update(certificateSha256);
    String expected = HexFormat.of().withUpperCase().formatHex(sha256.digest());
    return expected.equals(new String(raw, 1, raw.length - 1, StandardCharsets.US_ASCII));
  }

  private static byte[] bytes(int first, int count) {
    byte[] b = new byte[count];
    for (int i = 0; i < count; i++) {
      b[i] = (byte) (first + i);
    }
    return b;
  }
}
