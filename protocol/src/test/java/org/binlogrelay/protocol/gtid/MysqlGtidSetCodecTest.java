package org.binlogrelay.protocol.gtid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.UUID;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.bytes.ByteReader;
import org.binlogrelay.protocol.bytes.ByteWriter;
import org.junit.jupiter.api.Test;

/**
 * The binary GTID set. The "from MySQL 9.7.4" vectors are PREVIOUS_GTIDS event bodies (between the
 * 19-byte header and the CRC32) cut out of binlogs that a real MySQL 9.7.4 wrote; the text next to
 * each is what {@code SHOW BINLOG EVENTS} printed for that event.
 */
class MysqlGtidSetCodecTest {
  private static final HexFormat HEX = HexFormat.of();

  /** Tagged format, after one untagged, 'AUTOMATIC:tg1' and 'AUTOMATIC:Zeta_9' transactions. */
  private static final String TAGGED_TEXT =
      "aaf3c112-e628-11f1-82c2-02fc00000001:1-3:tg1:1-2:zeta_9:1";

  private static final String TAGGED_BYTES =
      "0103000000000001"
          + "aaf3c112e62811f182c202fc00000001"
          + "00"
          + "0100000000000000"
          + "0100000000000000"
          + "0400000000000000"
          + "aaf3c112e62811f182c202fc00000001"
          + "06"
          + "746731"
          + "0100000000000000"
          + "0100000000000000"
          + "0300000000000000"
          + "aaf3c112e62811f182c202fc00000001"
          + "0c"
          + "7a6574615f39"
          + "0100000000000000"
          + "0100000000000000"
          + "0200000000000000";

  /** Three UUIDs whose Java (signed) order differs from MySQL's. */
  private static final String THREE_UUIDS_TEXT =
      "0fffffff-0000-0000-0000-000000000002:1:3-4,\n"
          + "8fffffff-0000-0000-0000-000000000001:5,\n"
          + "aaf3c112-e628-11f1-82c2-02fc00000001:1";

  /** Untagged format: written by the server after a restart. */
  private static final String THREE_UUIDS_UNTAGGED =
      "0300000000000000"
          + "0fffffff000000000000000000000002"
          + "0200000000000000"
          + "0100000000000000"
          + "0200000000000000"
          + "0300000000000000"
          + "0500000000000000"
          + "8fffffff000000000000000000000001"
          + "0100000000000000"
          + "0500000000000000"
          + "0600000000000000"
          + "aaf3c112e62811f182c202fc00000001"
          + "0100000000000000"
          + "0100000000000000"
          + "0200000000000000";

  /**
   * The same set in the tagged format with zero-length tags: what the server wrote before the
   * restart, because its process-wide map still knew the tags it had seen (see MysqlGtidSetCodec).
   */
  private static final String THREE_UUIDS_TAGGED =
      "0103000000000001"
          + "0fffffff000000000000000000000002"
          + "00"
          + "0200000000000000"
          + "0100000000000000"
          + "0200000000000000"
          + "0300000000000000"
          + "0500000000000000"
          + "8fffffff000000000000000000000001"
          + "00"
          + "0100000000000000"
          + "0500000000000000"
          + "0600000000000000"
          + "aaf3c112e62811f182c202fc00000001"
          + "00"
          + "0100000000000000"
          + "0100000000000000"
          + "0200000000000000";

  private static MysqlGtidSet decode(String hex) {
    ByteReader in = new ByteReader(HEX.parseHex(hex));
    MysqlGtidSet set = MysqlGtidSet.decode(in);
    assertThat(in.remaining()).as("bytes left after the set").isZero();
    return set;
  }

  private static MysqlGtidSet decode(byte[] bytes) {
    return MysqlGtidSet.decode(new ByteReader(bytes));
  }

  @Test
  void untaggedGoldenWorkedOutByHand() {
    // 3e11fa47-...:1-5:11-18 -> n_sids=1; uuid; n_intervals=2; [1,6) [11,19), all little-endian.
    String expected =
        "0100000000000000"
            + "3e11fa4771ca11e19e33c80aa9429562"
            + "0200000000000000"
            + "0100000000000000"
            + "0600000000000000"
            + "0b00000000000000"
            + "1300000000000000";
    MysqlGtidSet set = MysqlGtidSet.parse("3E11FA47-71CA-11E1-9E33-C80AA9429562:1-5:11-18");
    assertThat(HEX.formatHex(set.encode())).isEqualTo(expected);
    assertThat(decode(expected)).isEqualTo(set);
  }

  @Test
  void emptySetIsEightZeroBytes() {
    assertThat(MysqlGtidSet.empty().encode()).isEqualTo(new byte[8]);
    assertThat(decode("0000000000000000").isEmpty()).isTrue();
    assertThat(decode("0100000000000001").isEmpty()).as("tagged, zero entries").isTrue();
  }

  @Test
  void taggedGoldenFromMysql() {
    MysqlGtidSet set = decode(TAGGED_BYTES);
    assertThat(set).hasToString(TAGGED_TEXT);
    assertThat(HEX.formatHex(MysqlGtidSet.parse(TAGGED_TEXT).encode())).isEqualTo(TAGGED_BYTES);
  }

  @Test
  void untaggedGoldenFromMysqlWithUnsignedUuidOrder() {
    MysqlGtidSet set = decode(THREE_UUIDS_UNTAGGED);
    assertThat(set).hasToString(THREE_UUIDS_TEXT);
    assertThat(HEX.formatHex(MysqlGtidSet.parse(THREE_UUIDS_TEXT).encode()))
        .isEqualTo(THREE_UUIDS_UNTAGGED);
  }

  @Test
  void taggedFormatWithoutTagsDecodesToTheSameSetAndReencodesUntagged() {
    MysqlGtidSet set = decode(THREE_UUIDS_TAGGED);
    assertThat(set).hasToString(THREE_UUIDS_TEXT);
    assertThat(HEX.formatHex(set.encode())).isEqualTo(THREE_UUIDS_UNTAGGED);
  }

  @Test
  void decodeReadsOneSetAndLeavesTheRest() {
    byte[] set = MysqlGtidSet.parse(TAGGED_TEXT).encode();
    byte[] withTail = Arrays.copyOf(set, set.length + 3);
    ByteReader in = new ByteReader(withTail);
    assertThat(MysqlGtidSet.decode(in)).hasToString(TAGGED_TEXT);
    assertThat(in.remaining()).isEqualTo(3);
  }

  @Test
  void repeatedEntriesMergeAsInMysql() {
    String uuid = "3e11fa4771ca11e19e33c80aa9429562";
    String hex =
        "0200000000000000"
            + uuid
            + "0100000000000000"
            + "0500000000000000"
            + "0700000000000000"
            + uuid
            + "0100000000000000"
            + "0100000000000000"
            + "0500000000000000";
    assertThat(decode(hex)).hasToString("3e11fa47-71ca-11e1-9e33-c80aa9429562:1-6");
  }

  @Test
  void upperCaseTagOnTheWireIsNormalised() {
    String hex =
        "0101000000000001"
            + "3e11fa4771ca11e19e33c80aa9429562"
            + "06"
            + "544731"
            + "0100000000000000"
            + "0100000000000000"
            + "0200000000000000";
    assertThat(decode(hex)).hasToString("3e11fa47-71ca-11e1-9e33-c80aa9429562:tg1:1");
  }

  @Test
  void largestGnoRoundTrips() {
    MysqlGtidSet set = MysqlGtidSet.empty();
    set.add(new MysqlGtid(UUID.randomUUID(), "t", MysqlGtid.MAX_GNO));
    byte[] bytes = set.encode();
    assertThat(Arrays.copyOfRange(bytes, bytes.length - 8, bytes.length))
        .isEqualTo(HEX.parseHex("ffffffffffffff7f"));
    assertThat(decode(bytes)).isEqualTo(set);
  }

  @Test
  void truncatedInputIsAProtocolErrorAtEveryLength() {
    byte[] whole = HEX.parseHex(TAGGED_BYTES);
    for (int n = 0; n < whole.length; n++) {
      byte[] cut = Arrays.copyOf(whole, n);
      assertThatThrownBy(() -> decode(cut))
          .as("cut at %d", n)
          .isInstanceOf(ProtocolException.class);
    }
  }

  @Test
  void hugeEntryCountIsRefusedBeforeAllocating() {
    byte[] bytes = new ByteWriter().u64(1L << 55).u64(0).toByteArray();
    assertThatThrownBy(() -> decode(bytes))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("claims 36028797018963968 entries but only 8 bytes follow");
    byte[] tagged = new ByteWriter().u64(1L << 56 | 0xffff_ffff_ffffL << 8 | 1).toByteArray();
    assertThatThrownBy(() -> decode(tagged)).hasMessageContaining("claims 281474976710655 entries");
  }

  @Test
  void hugeIntervalCountIsRefusedBeforeAllocating() {
    for (long n : new long[] {1L << 60, -1L, 2}) {
      ByteWriter w = new ByteWriter().u64(1).bytes(new byte[16]).u64(n).u64(1).u64(2);
      assertThatThrownBy(() -> decode(w.toByteArray()))
          .isInstanceOf(ProtocolException.class)
          .hasMessageContaining("intervals but only 16 bytes follow");
    }
  }

  @Test
  void badIntervalsAreRefused() {
    long[][] bad = {
      {0, 5}, // gno 0
      {5, 5}, // empty
      {6, 5}, // reversed
      {-1, 5}, // start above 2^63-1
      {1, -1}, // end above 2^63-1
      {1, 5, 5, 9}, // adjacent to the previous interval (MySQL merges those when it writes)
      {1, 5, 3, 9}, // overlapping
      {10, 15, 1, 5}, // unsorted
    };
    for (long[] intervals : bad) {
      ByteWriter w = new ByteWriter().u64(1).bytes(new byte[16]).u64(intervals.length / 2);
      for (long v : intervals) {
        w.u64(v);
      }
      assertThatThrownBy(() -> decode(w.toByteArray()))
          .as(Arrays.toString(intervals))
          .isInstanceOf(ProtocolException.class)
          .hasMessageContaining("GTID set entry 0 (00000000-0000-0000-0000-000000000000)")
          .hasMessageContaining("out of order");
    }
  }

  @Test
  void badHeadersAreRefused() {
    assertThatThrownBy(() -> decode("0201000000000002"))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("format 2 (compact) is not supported");
    assertThatThrownBy(() -> decode("0000000000000003"))
        .hasMessageContaining("unknown binary format 3");
    assertThatThrownBy(() -> decode("0000000000000001"))
        .hasMessageContaining("mismatched format bytes 0x0 and 0x01");
  }

  @Test
  void badTagsAreRefused() {
    String uuid = "3e11fa4771ca11e19e33c80aa9429562";
    String tail = "0100000000000000" + "0100000000000000" + "0200000000000000";
    assertThatThrownBy(() -> decode("0101000000000001" + uuid + "42" + "61".repeat(33) + tail))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("tag length 33 exceeds 32");
    assertThatThrownBy(() -> decode("0101000000000001" + uuid + "04" + "3161" + tail))
        .hasMessageContaining("invalid tag '1a'");
    assertThatThrownBy(() -> decode("0101000000000001" + uuid + "04" + "612d" + tail))
        .hasMessageContaining("invalid tag 'a-'");
    // A two-byte varint: 0b01 marker then length 64 << 2 spread over two bytes.
    assertThatThrownBy(() -> decode("0101000000000001" + uuid + "0101" + tail))
        .hasMessageContaining("tag length 64 exceeds 32");
  }

  @Test
  void varlenDecodesEveryWidth() {
    // Values and their MySQL serialization varint encodings, worked out from the format rules.
    assertThat(varlen("00")).isZero();
    assertThat(varlen("40")).isEqualTo(32);
    assertThat(varlen("fe")).isEqualTo(127);
    assertThat(varlen("0102")).isEqualTo(128);
    assertThat(varlen("ffffffffffffffffff")).isEqualTo(-1L);
    assertThat(varlen("7f0100000000000000".substring(0, 16))).isEqualTo(1);
  }

  private static long varlen(String hex) {
    return MysqlGtidSetCodec.readVarlen(new ByteReader(HEX.parseHex(hex)), "test");
  }
}
