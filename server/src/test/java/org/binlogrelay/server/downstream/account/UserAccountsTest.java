package org.binlogrelay.server.downstream.account;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import java.util.Set;
import org.binlogrelay.protocol.auth.CachingSha2Hash;
import org.binlogrelay.protocol.auth.NativePasswordHash;
import org.junit.jupiter.api.Test;

class UserAccountsTest {
  private static final String SHA2 = CachingSha2Hash.create("p", 5000, new Random(1)).storedForm();

  /** A MySQL 9.7 hash whose salt has control characters, in SHOW CREATE USER's hex form. */
  private static final String HEX =
      "0x244124303041244B4A0870362F0F285E4D7E662133141750261F5547663952302F3444475A674A"
          + "76306465613570444373536842463269456469726834493673554468367042";

  @Test
  void parsesTheFormat() {
    UserAccounts a =
        UserAccounts.parse(
            """
        # relay accounts
        repl@%%\tREPLICATION_SLAVE,REPLICATION_CLIENT   %s

        monitor@10.0.0.%%  replication_client  *2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19
        old@%%  REPLICATION-SLAVE  %s
        nobody@127.0.0.1 - %s
        odd@name@%% - %s
        """
                .formatted(SHA2, HEX, SHA2, SHA2));
    assertThat(a.all()).hasSize(5);
    UserAccount repl = a.find("repl", "192.168.1.1").orElseThrow();
    assertThat(repl.privileges())
        .containsExactlyInAnyOrder(Privilege.REPLICATION_SLAVE, Privilege.REPLICATION_CLIENT);
    assertThat(repl.credential().storedForm()).isEqualTo(SHA2);
    assertThat(a.find("monitor", "10.0.0.7").orElseThrow().credential())
        .isInstanceOf(NativePasswordHash.class);
    assertThat(a.find("monitor", "10.0.1.7")).isEmpty();
    assertThat(a.find("old", "x").orElseThrow().credential().storedForm()).isEqualTo(HEX);
    assertThat(a.find("nobody", "127.0.0.1").orElseThrow().privileges()).isEmpty();
    assertThat(a.find("odd@name", "1.2.3.4")).isPresent();
    assertThat(a.find("REPL", "1.2.3.4")).as("user names are case-sensitive").isEmpty();
  }

  @Test
  void aHashWithSpacesInItsSaltIsTakenWhole() {
    String withSpace = "$A$005$" + "ab cd ef gh ij kl mn" + "x".repeat(43);
    assertThat(withSpace).hasSize(70);
    UserAccounts a = UserAccounts.parse("u@% - " + withSpace + "   ");
    assertThat(a.all().get(0).credential()).isEqualTo(CachingSha2Hash.parse(withSpace));
  }

  @Test
  void mostSpecificHostWins() {
    UserAccounts a =
        UserAccounts.parse(
            """
        u@%% - %s
        u@10.%% - *2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19
        u@10.0.0.5 REPLICATION_SLAVE %s
        """
                .formatted(SHA2, SHA2));
    assertThat(a.find("u", "10.0.0.5").orElseThrow().host().text()).isEqualTo("10.0.0.5");
    assertThat(a.find("u", "10.9.9.9").orElseThrow().host().text()).isEqualTo("10.%");
    assertThat(a.find("u", "11.0.0.1").orElseThrow().host().text()).isEqualTo("%");
  }

  @Test
  void errorsNameTheLineAndWhatIsWrong() {
    assertThatThrownBy(() -> UserAccounts.parse("# c\nrepl@% REPLICATION_SLAVE"))
        .hasMessageStartingWith("accounts line 2:")
        .hasMessageContaining("hash is missing");
    assertThatThrownBy(() -> UserAccounts.parse("repl REPLICATION_SLAVE " + SHA2))
        .hasMessageContaining("not user@host");
    assertThatThrownBy(() -> UserAccounts.parse("repl@% SUPER " + SHA2))
        .hasMessageContaining("unknown privilege 'SUPER'");
    assertThatThrownBy(() -> UserAccounts.parse("repl@% - secret"))
        .hasMessageContaining("make one with PasswordHashes");
    assertThatThrownBy(() -> UserAccounts.parse("a@% - " + SHA2 + "\na@% - " + SHA2))
        .hasMessageContaining("defined twice");
    assertThatThrownBy(
            () ->
                new UserAccount(
                    "x".repeat(33), HostPattern.of("%"), CachingSha2Hash.parse(SHA2), Set.of()))
        .hasMessageContaining("1..32 characters");
  }
}
