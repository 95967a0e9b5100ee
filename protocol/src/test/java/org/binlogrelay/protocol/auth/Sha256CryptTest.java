package org.binlogrelay.protocol.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class Sha256CryptTest {

  /**
   * Digests computed by glibc's crypt(3) ($5$) on this machine; salts of 16 characters or fewer.
   */
  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "Hello world!|saltstring|5000|5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZaBBGWEc5",
        "Hello world!|saltstringsaltst|10000|3xv.VbSHBb41AL9AvLeujZkZRBAwqFMz2.opqey6IcA",
        "This is just a test|toolongsaltstrin|5000|Un/5jzAHMgOGZ5.mWJpuVolil07guHPvOW8mGRcvxa5",
        "we have a short salt string but not a short password|short|77777|JiO1O3ZpDAxGJeaDIuqCoEFysAe1mZNJRs3pw0KQRd/",
        "a short string|asaltof16chars..|123456|gP3VQ/6X7UUEW3HkBn2w1/Ptq2jxPyzV/cZKmF/wJvD",
        "a very much longer text to encrypt.  This one even stretches over morethan one line.|anotherlongsalts|1400|"
            + "Rx.j8H.h8HjEDGomFU8bDkXm3XIUnzyxf12oP84Bnq1"
      })
  void matchesGlibc(String password, String salt, int rounds, String digest) {
    assertThat(Sha256Crypt.digest(password, salt.getBytes(StandardCharsets.US_ASCII), rounds))
        .isEqualTo(digest);
  }

  @Test
  void usesAtMostTwentySaltBytes() {
    byte[] salt = "abcdefghijklmnopqrstuvwxyz".getBytes(StandardCharsets.US_ASCII);
    assertThat(Sha256Crypt.digest("pw", salt, 5000))
        .isEqualTo(
            Sha256Crypt.digest(
                "pw", "abcdefghijklmnopqrst".getBytes(StandardCharsets.US_ASCII), 5000));
  }

  @Test
  void refusesRoundsOutsideMysqlsRange() {
    assertThatThrownBy(() -> Sha256Crypt.digest("pw", new byte[] {'a'}, 999))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Sha256Crypt.digest("pw", new byte[] {'a'}, 4_095_001))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
