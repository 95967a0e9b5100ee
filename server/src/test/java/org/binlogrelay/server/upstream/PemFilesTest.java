package org.binlogrelay.server.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.util.Arrays;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Private keys as MySQL, MariaDB and openssl write them; errors name the file and say what to do.
 */
class PemFilesTest {
  @TempDir Path dir;

  private static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.UTF_8)).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }

  @Test
  void readsPkcs8AndPkcs1RsaKeys() throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
    generator.initialize(2048);
    KeyPair pair = generator.generateKeyPair();
    byte[] pkcs8 = pair.getPrivate().getEncoded();
    byte[] pkcs1 =
        Arrays.copyOfRange(
            pkcs8, 26, pkcs8.length); // after the PrivateKeyInfo headers of a 2048-bit key
    assertThat(PemFiles.rsaPkcs1ToPkcs8(pkcs1)).isEqualTo(pkcs8);

    Path p8 = dir.resolve("key8.pem");
    Files.writeString(p8, pem("PRIVATE KEY", pkcs8));
    assertThat(PemFiles.privateKey(p8)).isEqualTo(pair.getPrivate());
    Path p1 = dir.resolve("key1.pem");
    Files.writeString(p1, "some text before\n" + pem("RSA PRIVATE KEY", pkcs1));
    assertThat(PemFiles.privateKey(p1)).isEqualTo(pair.getPrivate());
  }

  @Test
  void refusesEncryptedKeysAndFilesWithoutPem() throws IOException {
    Path encrypted = dir.resolve("enc.pem");
    Files.writeString(encrypted, pem("ENCRYPTED PRIVATE KEY", new byte[] {1, 2, 3}));
    assertThatThrownBy(() -> PemFiles.privateKey(encrypted))
        .isInstanceOf(IOException.class)
        .hasMessageContaining(encrypted.toString())
        .hasMessageContaining("encrypted")
        .hasMessageContaining("-nocrypt");
    Path empty = dir.resolve("empty.pem");
    Files.writeString(empty, "nothing here");
    assertThatThrownBy(() -> PemFiles.certificates(empty))
        .isInstanceOf(IOException.class)
        .hasMessageContaining(empty.toString())
        .hasMessageContaining("no PEM certificate");
  }

  @Test
  void tlsConfigChecksItsFiles() {
    assertThatThrownBy(() -> new TlsConfig(TlsMode.REQUIRED, null, dir.resolve("c.pem"), null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("needs its key");
    assertThatThrownBy(() -> new TlsConfig(TlsMode.DISABLED, dir.resolve("ca.pem"), null, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("DISABLED");
    assertThatThrownBy(() -> TlsConfig.verify(TlsMode.REQUIRED, dir.resolve("ca.pem")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("does not check certificates");
    assertThat(TlsMode.REQUIRED.requiresTls()).isTrue();
    assertThat(TlsMode.PREFERRED.requiresTls()).isFalse();
    assertThat(TlsMode.VERIFY_IDENTITY.verifiesCertificate()).isTrue();
  }
}
