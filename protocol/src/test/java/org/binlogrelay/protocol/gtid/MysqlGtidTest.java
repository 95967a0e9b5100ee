package org.binlogrelay.protocol.gtid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.UUID;
import org.junit.jupiter.api.Test;

class MysqlGtidTest {
  private static final UUID U = UUID.fromString("3e11fa47-71ca-11e1-9e33-c80aa9429562");

  @Test
  void printsUntaggedAndTaggedForms() {
    assertThat(new MysqlGtid(U, 7)).hasToString("3e11fa47-71ca-11e1-9e33-c80aa9429562:7");
    assertThat(new MysqlGtid(U, "tg1", 1))
        .hasToString("3e11fa47-71ca-11e1-9e33-c80aa9429562:tg1:1");
  }

  @Test
  void tagsAreLowerCased() {
    MysqlGtid gtid = new MysqlGtid(U, "Zeta_9", 1);
    assertThat(gtid.tag()).isEqualTo("zeta_9");
    assertThat(gtid).isEqualTo(new MysqlGtid(U, "zeta_9", 1));
    assertThat(gtid.isTagged()).isTrue();
    assertThat(new MysqlGtid(U, 1).isTagged()).isFalse();
  }

  @Test
  void parsesWhatServersPrintAndWhatUsersType() {
    assertThat(MysqlGtid.parse("3E11FA47-71CA-11E1-9E33-C80AA9429562:23"))
        .isEqualTo(new MysqlGtid(U, 23));
    assertThat(
            MysqlGtid.parse(" 3e11fa47-71ca-11e1-9e33-c80aa9429562 : TagA : 9223372036854775806 "))
        .isEqualTo(new MysqlGtid(U, "taga", MysqlGtid.MAX_GNO));
    assertThat(MysqlGtid.parse("3e11fa4771ca11e19e33c80aa9429562:1"))
        .isEqualTo(new MysqlGtid(U, 1));
    assertThat(MysqlGtid.parse("{3e11fa47-71ca-11e1-9e33-c80aa9429562}:_:1"))
        .isEqualTo(new MysqlGtid(U, "_", 1));
  }

  @Test
  void gnoRangeIsOneToTwoPow63MinusTwo() {
    assertThatThrownBy(() -> new MysqlGtid(U, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("GTID number 0")
        .hasMessageContaining("1..9223372036854775806");
    assertThatThrownBy(() -> new MysqlGtid(U, Long.MAX_VALUE))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> MysqlGtid.parse(U + ":9223372036854775807"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("out of range");
    assertThatThrownBy(() -> MysqlGtid.parse(U + ":0"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("0 is not allowed");
  }

  @Test
  void rejectsBadTags() {
    assertThatThrownBy(() -> new MysqlGtid(U, "9lives", 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must start with a letter or '_'");
    assertThatThrownBy(() -> new MysqlGtid(U, "a-b", 1)).hasMessageContaining("character '-' at 1");
    assertThatThrownBy(() -> new MysqlGtid(U, "a".repeat(33), 1))
        .hasMessageContaining("longer than 32");
    assertThat(new MysqlGtid(U, "a".repeat(32), 1).tag()).hasSize(32);
    assertThatThrownBy(() -> new MysqlGtid(U, "é", 1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new MysqlGtid(U, null, 1)).hasMessageContaining("use \"\"");
  }

  @Test
  void rejectsMalformedText() {
    assertThatThrownBy(() -> MysqlGtid.parse("3e11fa47-71ca-11e1-9e33-c80aa942956:1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at character 35")
        .hasMessageContaining("hex digit");
    assertThatThrownBy(() -> MysqlGtid.parse(U + ":1:2")).hasMessageContaining("expected the end");
    assertThatThrownBy(() -> MysqlGtid.parse(U + ":"))
        .hasMessageContaining("expected a transaction number");
    assertThatThrownBy(() -> MysqlGtid.parse(U.toString())).hasMessageContaining("expected ':'");
    assertThatThrownBy(() -> MysqlGtid.parse("")).hasMessageContaining("expected a UUID");
    assertThatThrownBy(() -> MysqlGtid.parse(null)).isInstanceOf(IllegalArgumentException.class);
  }
}
