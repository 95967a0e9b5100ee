package org.binlogrelay.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.binlogrelay.protocol.auth.CachingSha2Hash;
import org.binlogrelay.protocol.auth.NativePasswordHash;
import org.junit.jupiter.api.Test;

/** The hashes made for the accounts file, checked with the relay's own verifier. */
class PasswordHashTest {

  @Test
  void cachingSha2HashIsAcceptedByTheRelaysVerifier() {
    for (String password : new String[] {"p", "replica-pass", "ä€ long ".repeat(20)}) {
      String stored = PasswordHash.cachingSha2(password);
      assertThat(stored).startsWith("$A$00A$").hasSize(70);
      CachingSha2Hash parsed = CachingSha2Hash.parse(stored);
      assertThat(parsed.rounds()).isEqualTo(10_000);
      assertThat(parsed.verifyPassword(password.getBytes(StandardCharsets.UTF_8))).isTrue();
      assertThat(parsed.verifyPassword("other".getBytes(StandardCharsets.UTF_8))).isFalse();
    }
  }

  @Test
  void sameSaltSameHashAsTheRelaysGenerator() {
    String stored = PasswordHash.cachingSha2("secret", "ABCDEFGHIJKLMNOPQRST");
    assertThat(CachingSha2Hash.parse(stored).storedForm()).isEqualTo(stored);
    assertThat(stored).startsWith("$A$00A$ABCDEFGHIJKLMNOPQRST");
  }

  @Test
  void nativeHashIsMysqlsPasswordFunction() {
    // SELECT PASSWORD('password') on MySQL 5.7
    assertThat(PasswordHash.nativePassword("password"))
        .isEqualTo("*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19")
        .isEqualTo(NativePasswordHash.of("password").storedForm());
  }

  @Test
  void emptyOrLongPasswordsAreRefused() {
    assertThatThrownBy(() -> PasswordHash.cachingSha2(""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("1..256 bytes");
    assertThatThrownBy(() -> PasswordHash.nativePassword("x".repeat(257)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void accountsLineHasUserHostPrivilegesHash() {
    String line =
        ReplicaAccount.of("replica", "pw")
            .accountsLine(ReplicaAccount.AuthPlugin.MYSQL_NATIVE_PASSWORD);
    assertThat(line)
        .isEqualTo(
            "replica@% REPLICATION_SLAVE,REPLICATION_CLIENT " + PasswordHash.nativePassword("pw"));
    assertThat(ReplicaAccount.of("replica", "pw").toString())
        .doesNotContain("pw,")
        .doesNotContain(" pw");
  }
}
