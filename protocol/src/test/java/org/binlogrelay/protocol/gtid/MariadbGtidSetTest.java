package org.binlogrelay.protocol.gtid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * MariaDB states. The strings below are what MariaDB 10.11.19 printed after these transactions, in
 * this order (domain-server-seq): 0-1-1, 0-1-2 (DDL), 5-7-1, 2-3-1, 5-2-2, 10-1-1, 5-9-3, 5-7-4,
 * 1-4294967295-18446744073709551615.
 */
class MariadbGtidSetTest {
  private static final List<MariadbGtid> LOGGED =
      List.of(
          g(0, 1, 1),
          g(0, 1, 2),
          g(5, 7, 1),
          g(2, 3, 1),
          g(5, 2, 2),
          g(10, 1, 1),
          g(5, 9, 3),
          g(5, 7, 4),
          g(1, 4294967295L, -1L));

  /** {@code SELECT @@gtid_binlog_pos}. */
  private static final String BINLOG_POS =
      "0-1-2,1-4294967295-18446744073709551615,2-3-1,5-7-4,10-1-1";

  /** {@code SELECT @@gtid_binlog_state}: domain 5's other servers came out in hash order (9, 2). */
  private static final String BINLOG_STATE =
      "0-1-2,1-4294967295-18446744073709551615,2-3-1,5-9-3,5-2-2,5-7-4,10-1-1";

  /** The GTID_LIST event MariaDB wrote at the start of the next binlog, in event order. */
  private static final String GTID_LIST_EVENT =
      "0-1-2,1-4294967295-18446744073709551615,2-3-1,5-2-2,5-9-3,5-7-4,10-1-1";

  private static MariadbGtid g(long domain, long server, long seq) {
    return new MariadbGtid(domain, server, seq);
  }

  @Test
  void positionPrintsExactlyAsMariadb() {
    MariadbGtidSet state = MariadbGtidSet.of(LOGGED);
    assertThat(state.toPositionString()).isEqualTo(BINLOG_POS);
    assertThat(MariadbGtidSet.parse(BINLOG_STATE).toPositionString()).isEqualTo(BINLOG_POS);
    assertThat(MariadbGtidSet.parse(BINLOG_POS).toPositionString()).isEqualTo(BINLOG_POS);
  }

  @Test
  void statePrintsDomainsAscendingWithTheNewestLast() {
    MariadbGtidSet state = MariadbGtidSet.of(LOGGED);
    assertThat(state).hasToString(GTID_LIST_EVENT);
    assertThat(MariadbGtidSet.parse(BINLOG_STATE)).isEqualTo(state);
    assertThat(MariadbGtidSet.parse(GTID_LIST_EVENT)).isEqualTo(state);
    assertThat(state.gtids()).hasSize(7).endsWith(g(10, 1, 1));
    assertThat(state.positions())
        .extracting(MariadbGtid::domainId)
        .containsExactly(0L, 1L, 2L, 5L, 10L);
    assertThat(state.newest(5)).contains(g(5, 7, 4));
    assertThat(state.newest(6)).isEmpty();
  }

  @Test
  void theLastEntryOfADomainIsItsNewestEvenWithALowerSeq() {
    // MariaDB 10.11: SET GLOBAL gtid_binlog_state='0-2-10,0-1-7' then @@gtid_binlog_pos = 0-1-7 and
    // @@gtid_binlog_state = 0-2-10,0-1-7.
    MariadbGtidSet state = MariadbGtidSet.parse("0-2-10,0-1-7");
    assertThat(state.toPositionString()).isEqualTo("0-1-7");
    assertThat(state).hasToString("0-2-10,0-1-7");
    assertThat(state.contains(g(0, 2, 10))).as("its own server's entry").isTrue();
    assertThat(state.contains(g(0, 1, 8))).isFalse();
  }

  @Test
  void addRecordsTheNewestAndReportsChange() {
    MariadbGtidSet state = MariadbGtidSet.empty();
    assertThat(state.isEmpty()).isTrue();
    assertThat(state).hasToString("");
    assertThat(state.toPositionString()).isEmpty();
    assertThat(state.add(g(0, 1, 1))).isTrue();
    assertThat(state.add(g(0, 1, 1))).isFalse();
    assertThat(state.add(g(0, 2, 2))).isTrue();
    assertThat(state.add(g(0, 1, 1))).as("older entry becomes newest again").isTrue();
    assertThat(state.toPositionString()).isEqualTo("0-1-1");
    assertThat(state).hasToString("0-2-2,0-1-1");
    assertThat(state.flavor()).isEqualTo(GtidFlavor.MARIADB);
  }

  @Test
  void containsComparesSequenceNumbersWithinTheDomainUnsigned() {
    MariadbGtidSet state = MariadbGtidSet.parse("0-1-100,1-1-9223372036854775808");
    assertThat(state.contains(g(0, 1, 100))).isTrue();
    assertThat(state.contains(g(0, 2, 50))).as("another server, lower seq in the domain").isTrue();
    assertThat(state.contains(g(0, 1, 101))).isFalse();
    assertThat(state.contains(g(2, 1, 1))).as("unknown domain").isFalse();
    assertThat(state.contains(g(1, 1, Long.MAX_VALUE))).isTrue();
    assertThat(state.contains(g(1, 1, -1L))).isFalse();
  }

  @Test
  void containsAllPerDomain() {
    MariadbGtidSet state = MariadbGtidSet.parse(BINLOG_STATE);
    assertThat(state.containsAll(MariadbGtidSet.parse("0-1-1,5-3-4,10-1-1"))).isTrue();
    assertThat(state.containsAll(MariadbGtidSet.parse("0-1-3"))).isFalse();
    assertThat(state.containsAll(MariadbGtidSet.parse("7-1-1"))).isFalse();
    assertThat(state.containsAll(MariadbGtidSet.empty())).isTrue();
    assertThat(MariadbGtidSet.empty().containsAll(state)).isFalse();
    assertThatThrownBy(() -> state.containsAll(MysqlGtidSet.empty()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("cannot compare a MariaDB GTID state with a MYSQL one");
  }

  @Test
  void parseAcceptsWhitespaceAndEmptyText() {
    assertThat(MariadbGtidSet.parse(" 0-1-2 ,\n 1-2-3 ").toPositionString())
        .isEqualTo("0-1-2,1-2-3");
    assertThat(MariadbGtidSet.parse("").isEmpty()).isTrue();
    assertThat(MariadbGtidSet.parse("  \n").isEmpty()).isTrue();
    assertThat(MariadbGtidSet.parse("10-1-2,2-2-3,0-1-1").toPositionString())
        .isEqualTo("0-1-1,2-2-3,10-1-2");
  }

  @Test
  void parseRejectsEmptyEntriesAndBadGtids() {
    // MariaDB 10.11: SET GLOBAL gtid_slave_pos='0-1-2,' fails with "Could not parse GTID list".
    assertThatThrownBy(() -> MariadbGtidSet.parse("0-1-2,"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("empty entry between commas");
    assertThatThrownBy(() -> MariadbGtidSet.parse("0-1-2,,1-1-1"))
        .hasMessageContaining("empty entry");
    assertThatThrownBy(() -> MariadbGtidSet.parse("0-1"))
        .hasMessageContaining("expected domain-server-seq");
    assertThatThrownBy(() -> MariadbGtidSet.parse(null))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void positionRejectsARepeatedDomainAsMariadbDoes() {
    // MariaDB 10.11: SET GLOBAL gtid_slave_pos='0-1-2,0-2-3' ->
    // ERROR 1943: GTID 0-2-3 and 0-1-2 conflict (duplicate domain id 0)
    assertThatThrownBy(() -> MariadbGtidSet.parsePosition("0-1-2,0-2-3"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("GTID 0-2-3 and 0-1-2 conflict (duplicate domain id 0)");
    assertThat(MariadbGtidSet.parsePosition(BINLOG_POS).toPositionString()).isEqualTo(BINLOG_POS);
    assertThat(MariadbGtidSet.parsePosition("").isEmpty()).isTrue();
  }

  @Test
  void copyIsIndependentAndEqualityIsByContent() {
    MariadbGtidSet a = MariadbGtidSet.parse(BINLOG_STATE);
    MariadbGtidSet b = a.copy();
    assertThat(b).isEqualTo(a).hasSameHashCodeAs(a);
    b.add(g(0, 1, 3));
    assertThat(a.toPositionString()).isEqualTo(BINLOG_POS);
    assertThat(b).isNotEqualTo(a);
    assertThat(MariadbGtidSet.parse("0-1-1,0-2-2"))
        .as("same entries, other newest")
        .isNotEqualTo(MariadbGtidSet.parse("0-2-2,0-1-1"));
  }

  /**
   * Found by GtidFuzzTest#mariadbText
   * (GtidFuzzTestInputs/mariadbText/crash-98dc079f3ba221d05416c7baf6ac969815c06f17): a malformed
   * list was quoted whole in the error, so a replica's connect state of any size went into the
   * relay's log and the ERR packet. At most 200 characters are quoted, as for MySQL GTID text.
   */
  @Test
  void errorsQuoteAtMost200CharactersOfTheText() {
    String emptyEntry = "0-1-1,".repeat(2000) + ",";
    String longNumber = "0-1-" + "7".repeat(5000);
    String noDashes = "x".repeat(5000);
    for (String text : List.of(emptyEntry, longNumber, noDashes, "0-1-1, " + longNumber)) {
      assertThatThrownBy(() -> MariadbGtidSet.parse(text))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("malformed MariaDB GTID")
          .hasMessageContaining("...")
          .satisfies(e -> assertThat(e.getMessage().length()).isLessThan(600));
    }
  }
}
