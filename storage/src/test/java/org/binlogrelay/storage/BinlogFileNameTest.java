package org.binlogrelay.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * File names and the order of positions: the hand-written parser accepts exactly what the grammar
 * says.
 */
class BinlogFileNameTest {
  /** The grammar, as the regular expression the parser replaced. */
  private static final Pattern GRAMMAR =
      Pattern.compile("([A-Za-z0-9_][A-Za-z0-9_.-]{0,199})\\.([0-9]{1,18})");

  @Test
  void theParserAgreesWithTheGrammarOnRandomNames() {
    Random random = new Random(7);
    String alphabet = "ab-_.09Z/ \u00e9";
    int valid = 0;
    for (int i = 0; i < 200_000; i++) {
      StringBuilder b = new StringBuilder();
      int length = random.nextInt(random.nextInt(10) == 0 ? 230 : 16);
      for (int j = 0; j < length; j++) {
        b.append(
            random.nextInt(3) == 0
                ? (char) ('0' + random.nextInt(10))
                : alphabet.charAt(random.nextInt(alphabet.length())));
      }
      String name = b.toString();
      Matcher m = GRAMMAR.matcher(name);
      boolean expected = m.matches();
      assertThat(BinlogFileName.isValid(name)).as("'%s'", name).isEqualTo(expected);
      if (expected) {
        valid++;
        assertThat(BinlogFileName.sequence(name)).isEqualTo(Long.parseLong(m.group(2)));
        assertThat(BinlogFileName.base(name)).isEqualTo(m.group(1));
      } else {
        assertThatThrownBy(() -> BinlogFileName.sequence(name))
            .isInstanceOf(IllegalArgumentException.class);
      }
    }
    assertThat(valid).isGreaterThan(1_000);
    for (String edge :
        List.of(
            "a.1",
            "a.123456789012345678",
            "a.1234567890123456789",
            ".1",
            "-a.1",
            "_a.1",
            "a..1",
            "a.",
            "a.1.",
            "x".repeat(200) + ".1",
            "x".repeat(201) + ".1",
            "binlog.000001",
            "mariadb-bin.000123")) {
      assertThat(BinlogFileName.isValid(edge)).as(edge).isEqualTo(GRAMMAR.matcher(edge).matches());
    }
  }

  @Test
  void nextKeepsTheWidth() {
    assertThat(BinlogFileName.next("binlog.000009")).isEqualTo("binlog.000010");
    assertThat(BinlogFileName.next("my.bin.log.999999")).isEqualTo("my.bin.log.1000000");
  }

  @Test
  void positionsOrderByFileNumberThenOffset() {
    List<Position> expected =
        List.of(
            new Position("binlog.000009", 4),
            new Position("binlog.000009", 900),
            new Position("binlog.000010", 4),
            new Position("binlog.000010", 5),
            new Position("binlog.100000", 4));
    List<Position> shuffled = new ArrayList<>(expected);
    Collections.shuffle(shuffled, new Random(3));
    Collections.sort(shuffled);
    assertThat(shuffled).isEqualTo(expected);
    assertThat(new Position("binlog.000010", 4))
        .isEqualByComparingTo(new Position("binlog.000010", 4));
    assertThat(new Position("not a name", 4))
        .as("positions in one file compare their offsets without parsing the name")
        .isLessThan(new Position("not a name", 5));
    assertThatThrownBy(
            () -> new Position("not a name", 4).compareTo(new Position("binlog.000010", 5)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
