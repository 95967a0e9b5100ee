package org.binlogrelay.protocol.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class CredentialTest {
  /**
   * mysql.user.authentication_string of repl / 'repl-pass', MySQL 9.7.4 (HEX() of it: the salt is
   * unprintable).
   */
  static final String MYSQL_97_REPL =
      "0x244124303041244B4A0870362F0F285E4D7E662133141750261F5547663952302F3444475A674A"
          + "76306465613570444373536842463269456469726834493673554468367042";

  /** Another account of the same server, password 'x'. */
  static final String MYSQL_97_NOREPL =
      "0x24412430304124472D056C630E0B5D452A373216294F1A1C49755D6964437A546B5165765850"
          + "68532E4C665A673773374248696549484C476E702F2F7257557341385154382E";

  @Test
  void verifiesHashesMadeByMysql97() {
    CachingSha2Hash repl = CachingSha2Hash.parse(MYSQL_97_REPL);
    assertThat(repl.rounds()).isEqualTo(10_000);
    assertThat(repl.verifyPassword(bytes("repl-pass"))).isTrue();
    assertThat(repl.verifyPassword(bytes("repl-pas"))).isFalse();
    CachingSha2Hash other = CachingSha2Hash.parse(MYSQL_97_NOREPL);
    assertThat(other.verifyPassword(bytes("x"))).isTrue();
    assertThat(other.verifyPassword(bytes("repl-pass"))).isFalse();
  }

  @Test
  void storedFormsRoundTrip() {
    assertThat(CachingSha2Hash.parse(MYSQL_97_REPL).storedForm()).isEqualTo(MYSQL_97_REPL);
    CachingSha2Hash made = CachingSha2Hash.create("s3cret", 5000, new Random(1));
    String text = made.storedForm();
    assertThat(text).startsWith("$A$005$").hasSize(70);
    assertThat(CachingSha2Hash.parse(text)).isEqualTo(made);
    assertThat(CachingSha2Hash.parse(text).verifyPassword(bytes("s3cret"))).isTrue();
    assertThat(Credential.parse(text)).isEqualTo(made);
  }

  @Test
  void nativeHashIsMysqlsPasswordFunction() {
    // SELECT PASSWORD('password') on MySQL 5.7.
    assertThat(NativePasswordHash.of("password").storedForm())
        .isEqualTo("*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19");
    NativePasswordHash h = NativePasswordHash.parse("*2470c0c06dee42fd1618bb99005adca2ec9d1e19");
    byte[] scramble = Scrambles.generate(new Random(7));
    assertThat(h.verifyScramble(scramble, NativePasswordHash.scramble("password", scramble)))
        .isTrue();
    assertThat(h.verifyScramble(scramble, NativePasswordHash.scramble("Password", scramble)))
        .isFalse();
    assertThat(h.verifyScramble(scramble, new byte[19])).isFalse();
  }

  @Test
  void fastPathScrambleMatchesOnlyTheRightPassword() {
    byte[] nonce = Scrambles.generate(new Random(3));
    byte[] cached = CachingSha2Hash.fastDigest(bytes("repl-pass"));
    assertThat(
            CachingSha2Hash.verifyScramble(
                cached, nonce, CachingSha2Hash.scramble("repl-pass", nonce)))
        .isTrue();
    assertThat(
            CachingSha2Hash.verifyScramble(
                cached, nonce, CachingSha2Hash.scramble("repl-pasS", nonce)))
        .isFalse();
    byte[] otherNonce = Scrambles.generate(new Random(4));
    assertThat(
            CachingSha2Hash.verifyScramble(
                cached, otherNonce, CachingSha2Hash.scramble("repl-pass", nonce)))
        .isFalse();
    assertThat(CachingSha2Hash.verifyScramble(cached, nonce, new byte[20])).isFalse();
  }

  @Test
  void refusesMalformedHashesSayingWhatIsExpected() {
    assertThatThrownBy(() -> Credential.parse("secret"))
        .hasMessageContaining("neither a mysql_native_password");
    assertThatThrownBy(() -> Credential.parse("*123")).hasMessageContaining("40 hex digits");
    assertThatThrownBy(() -> Credential.parse("*" + "Z".repeat(40)))
        .hasMessageContaining("not a hex digit");
    assertThatThrownBy(() -> Credential.parse("$A$005$short"))
        .hasMessageContaining("must be 70 bytes");
    assertThatThrownBy(() -> CachingSha2Hash.parse("$B$005$" + "a".repeat(63)))
        .hasMessageContaining("$A$NNN$");
    assertThatThrownBy(() -> Credential.parse("$A$00G$" + "a".repeat(63)))
        .hasMessageContaining("three hex digits");
    assertThatThrownBy(() -> Credential.parse("$A$000$" + "a".repeat(63)))
        .hasMessageContaining("no rounds");
    assertThatThrownBy(() -> Credential.parse("$A$005$" + "$".repeat(20) + "a".repeat(43)))
        .hasMessageContaining("salt byte 0x24");
    assertThatThrownBy(() -> Credential.parse("0x2441")).hasMessageContaining("140 hex digits");
  }

  /**
   * Found by AuthFuzzTest#storedHash (AuthFuzzTestInputs/storedHash/crash-bb354a6c...): the rounds
   * field went through Integer.parseInt, which takes a sign, so "$A$-01$..." was accepted with
   * -1,000 rounds; verifying such a hash threw and its stored form did not parse again.
   */
  @Test
  void refusesASignedRoundsField() {
    String digest = "4C71357752" + "66JUFkYiYohDDFdB2S9T74" + "a".repeat(11);
    for (String rounds : List.of("-01", "+0A", " 01", "0x1")) {
      String stored = "$A$" + rounds + "$" + "uGaaGCVq9tAJ92401060" + digest;
      assertThatThrownBy(() -> Credential.parse(stored))
          .as(stored)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("three hex digits");
    }
    assertThat(
            ((CachingSha2Hash) Credential.parse("$A$00a$" + "uGaaGCVq9tAJ92401060" + digest))
                .rounds())
        .isEqualTo(10_000);
  }

  /**
   * Found by AuthFuzzTest#storedHash (AuthFuzzTestInputs/storedHash/crash-fefdad2c...): the hex
   * form let any byte into the 43-character digest, so a hash was accepted whose stored form (text,
   * as its salt was printable) did not parse again. A digest is written with crypt's 64 characters
   * only; anything else is refused.
   */
  @Test
  void refusesADigestCharacterOutsideCryptsAlphabet() {
    String text =
        "$A$005$"
            + "P1PjP2mqXkmk9jry3Lr5"
            + "klFWP91Zady5P1PjP2mqXkmk9jry3Lq5wRfrAL"
            + "a".repeat(5);
    assertThat(Credential.parse(text)).isInstanceOf(CachingSha2Hash.class);
    byte[] raw = text.getBytes(StandardCharsets.US_ASCII);
    for (byte bad : new byte[] {(byte) 0x89, '$', '-', 0x14}) {
      raw[67] = bad;
      String hex = "0x" + HexFormat.of().formatHex(raw);
      assertThatThrownBy(() -> Credential.parse(hex))
          .as("byte %02x", bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("at 67 is not one of SHA-256-crypt's characters");
    }
  }

  @Test
  void hashesDoNotPrintThemselves() {
    assertThat(CachingSha2Hash.parse(MYSQL_97_REPL).toString())
        .doesNotContain("KJ")
        .contains("10000");
    assertThat(NativePasswordHash.of("x").toString())
        .doesNotContain(NativePasswordHash.of("x").storedForm());
  }

  @Test
  void passwordHashesMakesBothForms() {
    assertThat(Credential.parse(PasswordHashes.cachingSha2("p")).pluginName())
        .isEqualTo("caching_sha2_password");
    assertThat(PasswordHashes.cachingSha2("p")).startsWith("$A$00A$");
    assertThat(Credential.parse(PasswordHashes.nativePassword("p")).pluginName())
        .isEqualTo("mysql_native_password");
    assertThatThrownBy(() -> PasswordHashes.cachingSha2(""))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void scramblesAvoidNulAndDollar() {
    Random random = new Random(11);
    for (int i = 0; i < 1000; i++) {
      byte[] s = Scrambles.generate(random);
      assertThat(s).hasSize(20).doesNotContain((byte) 0, (byte) '$');
      for (byte b : s) {
        assertThat(b).isBetween((byte) 1, (byte) 0x7f);
      }
    }
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
