package org.binlogrelay.protocol.gtid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class MysqlGtidSetTest {
  private static final String U = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
  private static final String V = "8fffffff-0000-0000-0000-000000000001";
  private static final UUID UU = UUID.fromString(U);

  private static MysqlGtidSet set(String text) {
    return MysqlGtidSet.parse(text);
  }

  @Test
  void subtractMatchesMysql() {
    // MySQL 9.7.4: GTID_SUBTRACT('U:1-10:20-30:t:1-5,V:1-3', 'U:3-4:25:t:5:x:1,V:1-3')
    MysqlGtidSet a = set(U + ":1-10:20-30:t:1-5," + V + ":1-3");
    MysqlGtidSet b = set(U + ":3-4:25:t:5:x:1," + V + ":1-3");
    assertThat(a.subtract(b)).hasToString(U + ":1-2:5-10:20-24:26-30:t:1-4");
    assertThat(a.subtract(a)).hasToString("");
    assertThat(a).hasToString(U + ":1-10:20-30:t:1-5,\n" + V + ":1-3");
  }

  @Test
  void containsAllMatchesMysqlGtidSubset() {
    // MySQL 9.7.4: GTID_SUBSET('U:3-4:t:2','U:1-10:t:1-5') = 1, GTID_SUBSET('U:3-4:t:6', ...) = 0
    MysqlGtidSet big = set(U + ":1-10:t:1-5");
    assertThat(big.containsAll(set(U + ":3-4:t:2"))).isTrue();
    assertThat(big.containsAll(set(U + ":3-4:t:6"))).isFalse();
    assertThat(big.containsAll(set(U + ":3-4:u:1"))).isFalse();
    assertThat(big.containsAll(MysqlGtidSet.empty())).isTrue();
    assertThat(MysqlGtidSet.empty().containsAll(MysqlGtidSet.empty())).isTrue();
  }

  @Test
  void unionAndIntersection() {
    MysqlGtidSet a = set(U + ":1-5:t:1");
    MysqlGtidSet b = set(U + ":6-9:u:1," + V + ":1");
    assertThat(a.union(b)).hasToString(U + ":1-9:t:1:u:1,\n" + V + ":1");
    assertThat(a.intersection(set(U + ":3-20:t:1-2"))).hasToString(U + ":3-5:t:1");
    assertThat(a.intersection(b).isEmpty()).isTrue();
    assertThat(a).hasToString(U + ":1-5:t:1");
  }

  @Test
  void addAllAndRemoveAllWorkInPlace() {
    MysqlGtidSet a = set(U + ":1-5");
    a.addAll(set(U + ":7:t:1"));
    assertThat(a).hasToString(U + ":1-5:7:t:1");
    a.removeAll(set(U + ":1-7"));
    assertThat(a).hasToString(U + ":t:1");
    a.removeAll(set(U + ":t:1"));
    assertThat(a.isEmpty()).isTrue();
    assertThat(a.sourceIds()).isEmpty();
  }

  @Test
  void removeTakesOutOneGtid() {
    MysqlGtidSet s = set(U + ":1-5:t:1");
    assertThat(s.remove(new MysqlGtid(UU, 3))).isTrue();
    assertThat(s.remove(new MysqlGtid(UU, 3))).isFalse();
    assertThat(s.remove(new MysqlGtid(UU, 9))).isFalse();
    assertThat(s.remove(new MysqlGtid(UU, "u", 1))).isFalse();
    assertThat(s).hasToString(U + ":1-2:4-5:t:1");
    assertThat(s.remove(new MysqlGtid(UU, "T", 1))).isTrue();
    assertThat(s).hasToString(U + ":1-2:4-5");
    for (long gno : new long[] {1, 2, 4, 5}) {
      assertThat(s.remove(new MysqlGtid(UU, gno))).isTrue();
    }
    assertThat(s.isEmpty()).isTrue();
    assertThat(s.sourceIds()).isEmpty();
    // Adding after the last list went away makes a new one (no stale cached list).
    assertThat(s.add(new MysqlGtid(UU, 7))).isTrue();
    assertThat(s).hasToString(U + ":7");
  }

  @Test
  void addReportsWhetherTheGtidWasNew() {
    MysqlGtidSet s = MysqlGtidSet.empty();
    assertThat(s.add(new MysqlGtid(UU, 1))).isTrue();
    assertThat(s.add(new MysqlGtid(UU, 1))).isFalse();
    assertThat(s.add(new MysqlGtid(UU, "T", 1))).isTrue();
    assertThat(s.add(new MysqlGtid(UU, "t", 1))).isFalse();
    assertThat(s.contains(new MysqlGtid(UU, "T", 1))).isTrue();
    assertThat(s.contains(new MysqlGtid(UU, 2))).isFalse();
    assertThat(s.addInterval(UU, "", 1, 1)).isFalse();
    assertThat(s.addInterval(UU, "", 1, 3)).isTrue();
    assertThat(s).hasToString(U + ":1-3:t:1");
  }

  @Test
  void addStaysCorrectWhenSourcesInterleave() {
    MysqlGtidSet s = MysqlGtidSet.empty();
    UUID other = UUID.fromString(V);
    for (long gno = 1; gno <= 1000; gno++) {
      s.add(new MysqlGtid(UU, gno));
      s.add(new MysqlGtid(other, "t", gno));
      if (gno == 500) {
        s.removeAll(set(U + ":1-500"));
      }
    }
    assertThat(s).hasToString(U + ":501-1000,\n" + V + ":t:1-1000");
  }

  @Test
  void aMillionConsecutiveAddsStayOneInterval() {
    MysqlGtidSet s = MysqlGtidSet.empty();
    for (long gno = 1; gno <= 1_000_000; gno++) {
      s.add(new MysqlGtid(UU, gno));
    }
    assertThat(s.intervalsFor(UU, "")).containsExactly(new GtidInterval(1, 1_000_000));
    assertThat(s.size()).isEqualTo(BigInteger.valueOf(1_000_000));
  }

  @Test
  void accessors() {
    MysqlGtidSet s = set(U + ":1-3:b:1:a:2," + V + ":t:5");
    assertThat(s.sourceIds()).containsExactly(UU, UUID.fromString(V));
    assertThat(s.tags(UU)).containsExactly("", "a", "b");
    assertThat(s.tags(UUID.randomUUID())).isEmpty();
    assertThat(s.intervalsFor(UU, "A")).containsExactly(GtidInterval.of(2));
    assertThat(s.intervalsFor(UU, "zz")).isEmpty();
    assertThat(s.hasTags()).isTrue();
    assertThat(set(U + ":1").hasTags()).isFalse();
    assertThat(s.size()).isEqualTo(BigInteger.valueOf(6));
    assertThat(s.flavor()).isEqualTo(GtidFlavor.MYSQL);
  }

  @Test
  void sizeDoesNotOverflow() {
    MysqlGtidSet s = set(U + ":1-9223372036854775806:t:1-9223372036854775806");
    assertThat(s.size()).isEqualTo(BigInteger.valueOf(MysqlGtid.MAX_GNO).shiftLeft(1));
  }

  @Test
  void copyIsIndependentAndEqualByContent() {
    MysqlGtidSet a = set(U + ":1-5:t:1");
    MysqlGtidSet b = a.copy();
    assertThat(b).isEqualTo(a).hasSameHashCodeAs(a);
    b.add(new MysqlGtid(UU, 9));
    assertThat(a).hasToString(U + ":1-5:t:1");
    assertThat(b).isNotEqualTo(a);
    assertThat(set(U + ":5:1-4:t:1")).isEqualTo(a);
  }

  @Test
  void flavoursDoNotMix() {
    assertThatThrownBy(() -> MysqlGtidSet.empty().containsAll(MariadbGtidSet.empty()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("cannot compare a MySQL GTID set with a MARIADB one");
  }

  @Test
  void addIntervalValidates() {
    MysqlGtidSet s = MysqlGtidSet.empty();
    assertThatThrownBy(() -> s.addInterval(UU, "", 0, 1)).hasMessageContaining("interval start 0");
    assertThatThrownBy(() -> s.addInterval(UU, "", 5, 4)).hasMessageContaining("interval end 4");
    assertThatThrownBy(() -> s.addInterval(UU, "1x", 1, 1))
        .hasMessageContaining("invalid GTID tag");
    assertThatThrownBy(() -> s.addInterval(null, "", 1, 1))
        .isInstanceOf(NullPointerException.class);
    assertThat(s.isEmpty()).isTrue();
    assertThat(List.of(GtidInterval.of(3), new GtidInterval(1, 2)))
        .extracting(Object::toString)
        .containsExactly("3", "1-2");
  }
}
