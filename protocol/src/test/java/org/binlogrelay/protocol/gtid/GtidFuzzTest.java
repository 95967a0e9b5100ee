package org.binlogrelay.protocol.gtid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.bytes.ByteReader;
import org.binlogrelay.protocol.bytes.ByteWriter;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.event.FormatDescriptionEvent;
import org.binlogrelay.protocol.event.GtidListEvent;
import org.binlogrelay.protocol.testing.AllocationBudget;
import org.binlogrelay.protocol.testing.FixtureBinlogs;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fuzz targets for both GTID flavours' parsers (docs/fuzzing.md): MySQL's text and binary sets
 * (tagged GTIDs included), MariaDB's text states and GTID_LIST bodies. Each asserts the parser's
 * contract: bad input is refused with the documented exception only (IllegalArgumentException for
 * text, ProtocolException for bytes) and a message of bounded size; allocation stays proportional
 * to the input whatever a count field claims; and what parses round-trips: {@code
 * parse(toString(s)) == s}, {@code decode(encode(s)) == s}, text and binary agree, and the set
 * operations obey their algebra. Seeds are the sets the real servers reported and wrote in the
 * fixtures (docs/fixtures.md).
 */
class GtidFuzzTest {
  /**
   * Far above what any input here needs, far below what a length field could make a parser
   * allocate.
   */
  private static final long FIXED_BUDGET = 1 << 20;

  private static final int MAX_MESSAGE = 1024;

  private static final FormatDescriptionEvent MARIADB_FORMAT =
      firstEventFormat(FixtureBinlogs.MARIADB);

  // ---- MySQL text ----

  static Stream<Arguments> mysqlText() {
    List<String> seeds = new ArrayList<>();
    for (String key : FixtureBinlogs.expected(FixtureBinlogs.MYSQL).stringPropertyNames()) {
      if (key.equals("gtid_executed") || key.endsWith(".previous_gtids")) {
        seeds.add(FixtureBinlogs.expected(FixtureBinlogs.MYSQL).getProperty(key));
      }
    }
    seeds.add(
        "3E11FA47-71CA-11E1-9E33-C80AA9429562:1-5:11:Tag_1:7-9 , {3b1e7c52-0000-4000-8000-00000000f001}:3"
            + "|3e11fa4771ca11e19e33c80aa9429562:4-12:tag_1:1-8");
    return seeds.stream().sorted().map(s -> arguments((Object) s.getBytes(StandardCharsets.UTF_8)));
  }

  /**
   * {@code A|B} (or just {@code A}): each side is parsed as a set; a parsed set must print as MySQL
   * prints it and parse back to itself, encode and decode to itself, and two sets must obey union,
   * intersection and subtraction.
   */
  @MethodSource
  @FuzzTest
  void mysqlText(byte[] input) {
    String text = new String(input, StandardCharsets.UTF_8);
    int bar = text.indexOf('|');
    MysqlGtidSet a = parseMysql(bar < 0 ? text : text.substring(0, bar), input.length);
    MysqlGtidSet b = bar < 0 ? null : parseMysql(text.substring(bar + 1), input.length);
    if (a != null) {
      assertMysqlRoundTrips(a);
    }
    if (b != null) {
      assertMysqlRoundTrips(b);
    }
    if (a != null && b != null) {
      assertAlgebra(a, b);
    }
    parseSingleGtid(text);
  }

  private static MysqlGtidSet parseMysql(String text, int inputLength) {
    try {
      return AllocationBudget.of(FIXED_BUDGET, 256, inputLength)
          .check("MysqlGtidSet.parse", () -> MysqlGtidSet.parse(text));
    } catch (IllegalArgumentException refused) {
      assertBoundedMessage(refused);
      return null;
    }
  }

  private static void parseSingleGtid(String text) {
    MysqlGtid gtid;
    try {
      gtid = MysqlGtid.parse(text);
    } catch (IllegalArgumentException refused) {
      assertBoundedMessage(refused);
      return;
    }
    assertThat(MysqlGtid.parse(gtid.toString())).isEqualTo(gtid);
    assertThat(gtid.gno()).isBetween(1L, MysqlGtid.MAX_GNO);
    MysqlGtidSet one = MysqlGtidSet.empty();
    one.add(gtid);
    assertThat(one.contains(gtid)).isTrue();
    assertThat(one.size()).isEqualTo(BigInteger.ONE);
    assertThat(MysqlGtidSet.parse(one.toString())).isEqualTo(one);
  }

  private static void assertMysqlRoundTrips(MysqlGtidSet set) {
    String printed = set.toString();
    MysqlGtidSet reparsed = MysqlGtidSet.parse(printed);
    assertThat(reparsed).as("parse(toString(s)) for %s", printed).isEqualTo(set);
    assertThat(reparsed.toString()).isEqualTo(printed);
    assertThat(printed).doesNotContain(" ", "\t", "\r").doesNotContainPattern("[A-Z]");
    byte[] binary = set.encode();
    MysqlGtidSet decoded = MysqlGtidSet.decode(new ByteReader(binary));
    assertThat(decoded).as("decode(encode(s)) for %s", printed).isEqualTo(set);
    assertThat(decoded.encode()).isEqualTo(binary);
    assertThat(set.copy()).isEqualTo(set).hasSameHashCodeAs(set);
    assertThat(set.containsAll(set)).isTrue();
    assertThat(set.containsAll(MysqlGtidSet.empty())).isTrue();
    assertThat(set.isEmpty()).isEqualTo(printed.isEmpty());
    assertThat(set.size().signum() > 0).isEqualTo(!set.isEmpty());
  }

  private static void assertAlgebra(MysqlGtidSet a, MysqlGtidSet b) {
    MysqlGtidSet union = a.union(b);
    MysqlGtidSet both = a.intersection(b);
    MysqlGtidSet onlyA = a.subtract(b);
    assertThat(union.containsAll(a) && union.containsAll(b)).as("union contains both").isTrue();
    assertThat(a.containsAll(both) && b.containsAll(both))
        .as("both contain the intersection")
        .isTrue();
    assertThat(onlyA.intersection(b).isEmpty()).as("(a - b) and b are disjoint").isTrue();
    assertThat(onlyA.union(both)).as("(a - b) + (a & b) == a").isEqualTo(a);
    assertThat(union.subtract(b)).as("(a + b) - b == a - b").isEqualTo(onlyA);
    assertThat(b.union(a)).as("union commutes").isEqualTo(union);
    assertThat(b.intersection(a)).as("intersection commutes").isEqualTo(both);
    assertThat(union.size().add(both.size()))
        .as("|a + b| + |a & b| == |a| + |b|")
        .isEqualTo(a.size().add(b.size()));
    assertThat(a.containsAll(b)).isEqualTo(b.subtract(a).isEmpty());
    MysqlGtidSet inPlace = a.copy();
    inPlace.addAll(b);
    assertThat(inPlace).isEqualTo(union);
    inPlace.removeAll(b);
    assertThat(inPlace).isEqualTo(onlyA);
    for (MysqlGtidSet s : List.of(union, both, onlyA)) {
      assertMysqlRoundTrips(s);
    }
  }

  // ---- MySQL binary ----

  static Stream<Arguments> mysqlBinary() {
    List<byte[]> seeds = new ArrayList<>();
    for (String name : FixtureBinlogs.fileNames(FixtureBinlogs.MYSQL)) {
      for (byte[] event : FixtureBinlogs.events(FixtureBinlogs.bytes(FixtureBinlogs.MYSQL, name))) {
        if ((event[EventHeader.TYPE_OFFSET] & 0xff) == EventType.PREVIOUS_GTIDS.code()) {
          seeds.add(Arrays.copyOfRange(event, EventHeader.SIZE, event.length - 4));
        }
      }
    }
    mysqlText()
        .forEach(
            a -> {
              String text = new String((byte[]) a.get()[0], StandardCharsets.UTF_8);
              seeds.add(MysqlGtidSet.parse(text.split("\\|")[0]).encode());
            });
    return seeds.stream().map(s -> arguments((Object) s));
  }

  /**
   * The binary form of PREVIOUS_GTIDS and COM_BINLOG_DUMP_GTID: refused with ProtocolException or
   * decoded within the bytes given, with allocation bounded by the input whatever the entry and
   * interval counts claim; a decoded set encodes and decodes to itself and prints as text that
   * parses to itself.
   */
  @MethodSource
  @FuzzTest
  void mysqlBinary(byte[] input) {
    ByteReader in = new ByteReader(input);
    MysqlGtidSet set;
    try {
      set =
          AllocationBudget.of(FIXED_BUDGET, 64, input.length)
              .check(
                  "MysqlGtidSet.decode",
                  () -> {
                    in.position(0);
                    return MysqlGtidSet.decode(in);
                  });
    } catch (ProtocolException refused) {
      assertBoundedMessage(refused);
      return;
    }
    assertThat(in.position()).isBetween(8, input.length);
    assertMysqlRoundTrips(set);
  }

  // ---- MariaDB text ----

  static Stream<Arguments> mariadbText() {
    Properties expected = FixtureBinlogs.expected(FixtureBinlogs.MARIADB);
    List<String> seeds = new ArrayList<>();
    for (String key : expected.stringPropertyNames()) {
      if (key.startsWith("gtid_binlog_") || key.endsWith(".gtid_list")) {
        seeds.add(expected.getProperty(key));
      }
    }
    seeds.add(" 1-4294967295-18446744073709551615 ,0-2-9,0-1-00102");
    return seeds.stream().sorted().map(s -> arguments((Object) s.getBytes(StandardCharsets.UTF_8)));
  }

  /**
   * {@code @@gtid_binlog_state} / {@code @@gtid_binlog_pos} text: refused with
   * IllegalArgumentException or parsed to a state that prints and parses back to itself, whose
   * position text parses as a position, and which has reached every GTID it lists.
   */
  @MethodSource
  @FuzzTest
  void mariadbText(byte[] input) {
    String text = new String(input, StandardCharsets.UTF_8);
    MariadbGtidSet set;
    try {
      set =
          AllocationBudget.of(FIXED_BUDGET, 256, input.length)
              .check("MariadbGtidSet.parse", () -> MariadbGtidSet.parse(text));
    } catch (IllegalArgumentException refused) {
      assertBoundedMessage(refused);
      set = null;
    }
    if (set != null) {
      assertMariadbRoundTrips(set);
    }
    try {
      MariadbGtidSet position = MariadbGtidSet.parsePosition(text);
      assertThat(position).isEqualTo(set);
      assertThat(position.gtids()).isEqualTo(position.positions());
    } catch (IllegalArgumentException refused) {
      assertBoundedMessage(refused);
    }
  }

  private static void assertMariadbRoundTrips(MariadbGtidSet set) {
    String printed = set.toString();
    MariadbGtidSet reparsed = MariadbGtidSet.parse(printed);
    assertThat(reparsed).as("parse(toString(s)) for %s", printed).isEqualTo(set);
    assertThat(reparsed.toString()).isEqualTo(printed);
    assertThat(MariadbGtidSet.of(set.gtids())).isEqualTo(set);
    MariadbGtidSet positions = MariadbGtidSet.parsePosition(set.toPositionString());
    assertThat(positions).isEqualTo(MariadbGtidSet.of(set.positions()));
    assertThat(set.containsAll(positions)).isTrue();
    assertThat(set.containsAll(set)).isTrue();
    assertThat(set.copy()).isEqualTo(set).hasSameHashCodeAs(set);
    for (MariadbGtid gtid : set.gtids()) {
      assertThat(set.contains(gtid)).as("%s has reached %s", printed, gtid).isTrue();
      assertThat(MariadbGtid.parse(gtid.toString())).isEqualTo(gtid);
    }
    assertThat(set.isEmpty()).isEqualTo(printed.isEmpty());
  }

  // ---- MariaDB GTID_LIST ----

  static Stream<Arguments> mariadbGtidList() {
    List<byte[]> seeds = new ArrayList<>();
    for (String name : FixtureBinlogs.fileNames(FixtureBinlogs.MARIADB)) {
      for (byte[] event :
          FixtureBinlogs.events(FixtureBinlogs.bytes(FixtureBinlogs.MARIADB, name))) {
        if ((event[EventHeader.TYPE_OFFSET] & 0xff) == EventType.GTID_LIST.code()) {
          seeds.add(Arrays.copyOfRange(event, EventHeader.SIZE, event.length - 4));
        }
      }
    }
    return seeds.stream().map(s -> arguments((Object) s));
  }

  /**
   * A GTID_LIST body (the bytes between the common header and the CRC32): refused with
   * ProtocolException, or parsed within the body whatever its 28-bit count claims; the entries,
   * written back as a body, parse to the same list, and the state they make prints and parses back
   * to itself.
   */
  @MethodSource
  @FuzzTest
  void mariadbGtidList(byte[] body) {
    BinlogEvent event =
        BinlogEvent.assemble(
            new EventHeader(0, EventType.GTID_LIST.code(), 1, 0, 0, 0), body, true);
    GtidListEvent list;
    try {
      list =
          AllocationBudget.of(FIXED_BUDGET, 64, body.length)
              .check("GtidListEvent.parse", () -> GtidListEvent.parse(event, MARIADB_FORMAT));
    } catch (ProtocolException refused) {
      assertBoundedMessage(refused);
      return;
    }
    assertThat(4L + 16L * list.gtids().size()).isLessThanOrEqualTo(body.length);
    ByteWriter out = new ByteWriter();
    out.u32((list.gtids().size() | list.flags()) & 0xffffffffL);
    for (MariadbGtid gtid : list.gtids()) {
      out.u32(gtid.domainId()).u32(gtid.serverId()).u64(gtid.seqNo());
    }
    BinlogEvent rewritten = BinlogEvent.assemble(event.header(), out.toByteArray(), true);
    assertThat(GtidListEvent.parse(rewritten, MARIADB_FORMAT)).isEqualTo(list);
    assertMariadbRoundTrips(list.gtidSet());
  }

  // ---- shared ----

  private static void assertBoundedMessage(RuntimeException e) {
    assertThat(e.getMessage()).isNotBlank();
    assertThat(e.getMessage().length())
        .as("message size of %s", e.getClass().getSimpleName())
        .isLessThanOrEqualTo(MAX_MESSAGE);
  }

  private static FormatDescriptionEvent firstEventFormat(String directory) {
    byte[] first = FixtureBinlogs.bytes(directory, FixtureBinlogs.fileNames(directory).get(0));
    return FormatDescriptionEvent.parse(first, 4, (int) EventHeader.parse(first, 4).eventSize());
  }
}
