package org.binlogrelay.protocol.gtid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Text parsing and printing. Every "server printed" string below was produced by MySQL 9.7.4 (via
 * {@code SELECT GTID_SUBTRACT(input, '')}, {@code @@gtid_executed} or {@code @@gtid_purged}).
 */
class MysqlGtidSetTextTest {
  private static final String U = "3E11FA47-71CA-11E1-9E33-C80AA9429562";
  private static final String u = "3e11fa47-71ca-11e1-9e33-c80aa9429562";

  private static String print(String text) {
    return MysqlGtidSet.parse(text).toString();
  }

  @Test
  void oneUntaggedThenOneTaggedGtid() {
    // MySQL 9.7.4 @@gtid_executed after one plain and one 'AUTOMATIC:tg1' transaction.
    String s = "1568da5b-e628-11f1-aa9a-02fc00000001:1:tg1:1";
    assertThat(print(s)).isEqualTo(s);
  }

  @Test
  void theBriefsExampleAsTheServerPrintsIt() {
    assertThat(print(U + ":1-5:11-18, " + U + ":tagA:1-3,\n4AB11111-71CA-11E1-9E33-C80AA9429562:1"))
        .isEqualTo(u + ":1-5:11-18:taga:1-3,\n4ab11111-71ca-11e1-9e33-c80aa9429562:1");
  }

  @Test
  void uuidsSortAsUnsignedBytesNotAsJavaUuids() {
    // MySQL 9.7.4 printed exactly this for the four UUIDs given in reverse-ish order.
    String in =
        "ffffffff-71CA-11E1-9E33-C80AA9429562:1,0fffffff-71CA-11E1-9E33-C80AA9429562:1,"
            + "8fffffff-71CA-11E1-9E33-C80AA9429562:1,7fffffff-0000-0000-0000-000000000000:1";
    assertThat(print(in))
        .isEqualTo(
            "0fffffff-71ca-11e1-9e33-c80aa9429562:1,\n"
                + "7fffffff-0000-0000-0000-000000000000:1,\n"
                + "8fffffff-71ca-11e1-9e33-c80aa9429562:1,\n"
                + "ffffffff-71ca-11e1-9e33-c80aa9429562:1");
  }

  @Test
  void tagsSwitchWithinAGroupAndPrintInAsciiOrder() {
    assertThat(print(U + ":1-3:z:5:a:7-9:_x:1:a0:3:a_:1:A9:2"))
        .isEqualTo(u + ":1-3:_x:1:a:7-9:a0:3:a9:2:a_:1:z:5");
    assertThat(print(U + ":T:1:t:2")).isEqualTo(u + ":t:1-2");
    assertThat(print("aaf3c112-e628-11f1-82c2-02fc00000001:1-3:tg1:1-2:Zeta_9:1"))
        .isEqualTo("aaf3c112-e628-11f1-82c2-02fc00000001:1-3:tg1:1-2:zeta_9:1");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        " " + U + ":1 | " + u + ":1",
        U + ":_:1 | " + u + ":_:1",
        U + ":1 :2 | " + u + ":1-2",
        U + " :1 | " + u + ":1",
        U + ": tag :1 | " + u + ":tag:1",
        U + ":1,,," + U + ":2 | " + u + ":1-2",
        U + ":1 - 3 | " + u + ":1-3",
        U + ":1-3:2-7:9:8 | " + u + ":1-9",
        U + ":1-4:5-6:8 | " + u + ":1-6:8",
        U + ":9223372036854775806-9223372036854775806 | " + u + ":9223372036854775806",
        U + ":t:1:u | " + u + ":t:1",
        U + ":1:2:3, " + U + ":4 | " + u + ":1-4",
        U + ":1, | " + u + ":1",
        "3E11FA4771CA11E19E33C80AA9429562:1 | " + u + ":1",
        "{" + U + "}:1 | " + u + ":1",
        U + ":01-010 | " + u + ":1-10",
      })
  void acceptsWhatMysqlAccepts(String in, String printed) {
    assertThat(print(in)).isEqualTo(printed);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "   ", ",", " , ,\n", U, U + ":tag", U + ":a:b:c"})
  void emptyTextsAndEmptyGroupsGiveTheEmptySet(String in) {
    MysqlGtidSet set = MysqlGtidSet.parse(in);
    assertThat(set.isEmpty()).isTrue();
    assertThat(set).hasToString("");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        U + ":0 | 0 is not allowed",
        U + ":9223372036854775807 | out of range",
        U + ":1-9223372036854775807 | out of range",
        U + ":18446744073709551617 | out of range",
        U + ":1: | expected a tag or a transaction number",
        U + ":ta g:1 | expected ':', ',' or the end",
        U + ":abcdefghijabcdefghijabcdefghijabc:1 | tag longer than 32",
        U + ":0a:3 | 0 is not allowed",
        "3E11FA47-71CA-11E1-9E33-C80AA942956:1 | hex digit",
        U + ":01-0x10 | interval 1-0 ends before it starts",
        U + ":5x | expected ':', ',' or the end",
        U + ":+5 | expected a tag or a transaction number",
        U + "::5 | expected a tag or a transaction number",
        U + ":5- | expected the interval's last transaction number",
        U + ":5-3 | ends before it starts",
        U + ":1 " + U + ":2 | expected ':', ',' or the end",
        "not-a-uuid:1 | expected a UUID",
        "{3E11FA4771CA11E19E33C80AA9429562}:1 | inside braces",
        "{" + U + ":1 | expected '}'",
      })
  void rejectsMalformedTextWithAUsefulMessage(String in, String message) {
    assertThatThrownBy(() -> MysqlGtidSet.parse(in))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(message)
        .hasMessageContaining("malformed MySQL GTID text '" + in + "' at ");
  }

  @Test
  void errorMessagesPointAtTheOffendingCharacter() {
    assertThatThrownBy(() -> MysqlGtidSet.parse(U + ":0"))
        .hasMessage(
            "malformed MySQL GTID text '"
                + U
                + ":0' at character 37 ('0'): transaction number 0"
                + " is not allowed (numbers start at 1)");
    assertThatThrownBy(() -> MysqlGtidSet.parse(U + ":5-"))
        .hasMessageEndingWith("at the end: expected the interval's last transaction number");
  }

  @Test
  void theLargestSetPrintsInFull() {
    MysqlGtidSet set = MysqlGtidSet.empty();
    set.addInterval(UUID.fromString(u), "", 1, MysqlGtid.MAX_GNO);
    assertThat(set).hasToString(u + ":1-9223372036854775806");
    assertThat(MysqlGtidSet.parse(set.toString())).isEqualTo(set);
  }
}
