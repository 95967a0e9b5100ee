package org.binlogrelay.protocol.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.bytes.ByteWriter;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.junit.jupiter.api.Test;

/**
 * The three replication commands: bytes as the relay's upstream, the benchmark client and replicas
 * send them (the expected hex is what the encoders these records replaced produced), round trips,
 * and malformed payloads.
 */
class ReplicationCommandCodecTest {

  private static String hex(byte[] b) {
    return HexFormat.of().formatHex(b);
  }

  private static String hex(String s) {
    return hex(s.getBytes(StandardCharsets.UTF_8));
  }

  // COM_REGISTER_SLAVE

  @Test
  void registerReplicaAsTheUpstreamSendsIt() {
    byte[] payload = RegisterReplicaCommand.of(9001, "relay-1", 3307).encode();
    assertThat(hex(payload))
        .isEqualTo(
            "15"
                + "29230000"
                + "07"
                + hex("relay-1")
                + "00"
                + "00"
                + "eb0c"
                + "00000000"
                + "00000000");
    assertThat(RegisterReplicaCommand.decode(payload))
        .isEqualTo(RegisterReplicaCommand.of(9001, "relay-1", 3307));
  }

  @Test
  void registerReplicaRoundTripsEveryField() {
    RegisterReplicaCommand c =
        new RegisterReplicaCommand(0xFFFFFFFFL, "h", "repl", "secret", 65535, 3, 17);
    assertThat(RegisterReplicaCommand.decode(c.encode())).isEqualTo(c);
    assertThat(c.toString()).doesNotContain("secret");
  }

  @Test
  void registerReplicaWithoutRankAndSourceIdAsMysqlReadsIt() {
    byte[] shortest = new ByteWriter().u8(0x15).u32(5).u8(0).u8(0).u8(0).u16(3306).toByteArray();
    assertThat(RegisterReplicaCommand.decode(shortest))
        .isEqualTo(RegisterReplicaCommand.of(5, "", 3306));
  }

  @Test
  void registerReplicaRefusesAnOverlongHost() {
    assertThatThrownBy(() -> RegisterReplicaCommand.of(1, "h".repeat(251), 0).encode())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at most 250");
    assertThat(RegisterReplicaCommand.of(1, "h".repeat(250), 0).encode()).hasSize(18 + 250);
  }

  @Test
  void registerReplicaRefusesMalformedPayloads() {
    assertThatThrownBy(() -> RegisterReplicaCommand.decode(new byte[] {0x15, 1, 0}))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("COM_REGISTER_SLAVE server id");
    byte[] hostPastEnd = new ByteWriter().u8(0x15).u32(5).u8(200).string("abc").toByteArray();
    assertThatThrownBy(() -> RegisterReplicaCommand.decode(hostPastEnd))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("COM_REGISTER_SLAVE host");
    assertThatThrownBy(() -> RegisterReplicaCommand.decode(new byte[0]))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("COM_REGISTER_SLAVE command");
    assertThatThrownBy(() -> RegisterReplicaCommand.decode(new byte[] {0x12, 0, 0, 0, 0}))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("not COM_REGISTER_SLAVE");
    assertThatThrownBy(() -> new RegisterReplicaCommand(1L << 32, "", "", "", 0, 0, 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  // COM_BINLOG_DUMP

  @Test
  void binlogDumpAsTheUpstreamSendsIt() {
    BinlogDumpCommand c = new BinlogDumpCommand(0x01020304L, 2, 0xaabbccddL, "binlog.000042");
    assertThat(hex(c.encode()))
        .isEqualTo("12" + "04030201" + "0200" + "ddccbbaa" + hex("binlog.000042"));
    assertThat(BinlogDumpCommand.decode(c.encode())).isEqualTo(c);
  }

  @Test
  void binlogDumpAsTheBenchmarkSendsIt() {
    // MariaDB GTID dump: no file, position 4, ANNOTATE_ROWS | NON_BLOCK.
    BinlogDumpCommand c =
        new BinlogDumpCommand(
            4,
            BinlogDumpCommand.BINLOG_SEND_ANNOTATE_ROWS_EVENT
                | BinlogDumpCommand.BINLOG_DUMP_NON_BLOCK,
            77,
            "");
    assertThat(hex(c.encode())).isEqualTo("12" + "04000000" + "0300" + "4d000000");
    assertThat(BinlogDumpCommand.decode(c.encode())).isEqualTo(c);
  }

  @Test
  void binlogDumpHasAFourByteOffset() {
    assertThatThrownBy(() -> new BinlogDumpCommand(1L << 32, 0, 1, "binlog.000001"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("4-byte");
    assertThatThrownBy(() -> new BinlogDumpCommand(4, 0x10000, 1, "binlog.000001"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("flags");
    assertThatThrownBy(() -> new BinlogDumpCommand(4, 0, 1, "b.1\0"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("first NUL");
  }

  @Test
  void binlogDumpFileNameEndsAtItsFirstNul() {
    byte[] zongji =
        new ByteWriter().u8(0x12).u32(4).u16(0).u32(77).string("binlog.000001").u8(0).toByteArray();
    assertThat(BinlogDumpCommand.decode(zongji))
        .isEqualTo(new BinlogDumpCommand(4, 0, 77, "binlog.000001"));
    byte[] trailing =
        new ByteWriter()
            .u8(0x12)
            .u32(120)
            .u16(0)
            .u32(1)
            .string("binlog.000002")
            .u8(0)
            .string("garbage")
            .bytes(new byte[600])
            .toByteArray();
    assertThat(BinlogDumpCommand.decode(trailing).fileName()).isEqualTo("binlog.000002");
  }

  @Test
  void binlogDumpRefusesMalformedPayloads() {
    byte[] name = "a".repeat(513).getBytes(StandardCharsets.US_ASCII);
    byte[] longName = new ByteWriter().u8(0x12).u32(4).u16(0).u32(1).bytes(name).toByteArray();
    assertThatThrownBy(() -> BinlogDumpCommand.decode(longName))
        .isInstanceOf(ProtocolException.class)
        .hasMessage("COM_BINLOG_DUMP: file name of 513 bytes, limit 512");
    byte[] longest =
        new ByteWriter()
            .u8(0x12)
            .u32(4)
            .u16(0)
            .u32(1)
            .bytes(Arrays.copyOf(name, 512))
            .toByteArray();
    assertThat(BinlogDumpCommand.decode(longest).fileName()).hasSize(512);
    assertThatThrownBy(() -> BinlogDumpCommand.decode(new byte[] {0x12, 4, 0, 0, 0, 0}))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("COM_BINLOG_DUMP flags");
    assertThatThrownBy(() -> BinlogDumpCommand.decode(new byte[] {0x1e}))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("not COM_BINLOG_DUMP");
  }

  // COM_BINLOG_DUMP_GTID

  @Test
  void binlogDumpGtidAsTheUpstreamSendsIt() {
    MysqlGtidSet set = MysqlGtidSet.parse("3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5");
    byte[] encoded = set.encode();
    BinlogDumpGtidCommand c =
        new BinlogDumpGtidCommand(BinlogDumpGtidCommand.BINLOG_THROUGH_GTID, 7, "", 4, set);
    assertThat(hex(c.encode()))
        .isEqualTo(
            "1e"
                + "0400"
                + "07000000"
                + "00000000"
                + "0400000000000000"
                + String.format("%02x000000", encoded.length)
                + hex(encoded));
    assertThat(BinlogDumpGtidCommand.decode(c.encode())).isEqualTo(c);
  }

  @Test
  void binlogDumpGtidByPositionPastFourGigabytes() {
    // The upstream's dump from an offset past 2^32: through position, with an empty set.
    BinlogDumpGtidCommand c =
        new BinlogDumpGtidCommand(
            BinlogDumpGtidCommand.BINLOG_THROUGH_POSITION,
            9,
            "binlog.000003",
            1L << 33,
            MysqlGtidSet.empty());
    assertThat(hex(c.encode()))
        .isEqualTo(
            "1e"
                + "0200"
                + "09000000"
                + "0d000000"
                + hex("binlog.000003")
                + "0000000002000000"
                + "08000000"
                + "0000000000000000");
    assertThat(BinlogDumpGtidCommand.decode(c.encode())).isEqualTo(c);
  }

  @Test
  void binlogDumpGtidWithoutDataHasNoSet() {
    byte[] payload =
        new ByteWriter().u8(0x1e).u16(0).u32(1).u32(3).string("b.1").u64(120).toByteArray();
    BinlogDumpGtidCommand c = BinlogDumpGtidCommand.decode(payload);
    assertThat(c).isEqualTo(new BinlogDumpGtidCommand(0, 1, "b.1", 120, null));
    assertThat(c.encode()).isEqualTo(payload);
  }

  @Test
  void binlogDumpGtidRefusesMalformedPayloads() {
    assertThatThrownBy(() -> BinlogDumpGtidCommand.decode(new byte[] {0x1e, 0, 0}))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("COM_BINLOG_DUMP_GTID server id");
    byte[] longName = new ByteWriter().u8(0x1e).u16(0).u32(1).u32(100_000).toByteArray();
    assertThatThrownBy(() -> BinlogDumpGtidCommand.decode(longName))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("file name of 100000 bytes, limit 512");
    byte[] hugeName = new ByteWriter().u8(0x1e).u16(0).u32(1).u32(0xFFFFFFFFL).toByteArray();
    assertThatThrownBy(() -> BinlogDumpGtidCommand.decode(hugeName))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("limit 512");
    byte[] dataPastEnd =
        new ByteWriter().u8(0x1e).u16(4).u32(1).u32(0).u64(4).u32(1000).u64(0).toByteArray();
    assertThatThrownBy(() -> BinlogDumpGtidCommand.decode(dataPastEnd))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("COM_BINLOG_DUMP_GTID GTID data");
    byte[] hugeData =
        new ByteWriter().u8(0x1e).u16(4).u32(1).u32(0).u64(4).u32(0xFFFFFFFFL).toByteArray();
    assertThatThrownBy(() -> BinlogDumpGtidCommand.decode(hugeData))
        .isInstanceOf(ProtocolException.class);
    byte[] trailing =
        new ByteWriter().u8(0x1e).u16(4).u32(1).u32(0).u64(4).u32(9).u64(0).u8(7).toByteArray();
    assertThatThrownBy(() -> BinlogDumpGtidCommand.decode(trailing))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("1 bytes after the GTID set");
    assertThatThrownBy(() -> BinlogDumpGtidCommand.decode(new byte[] {0x12}))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("not COM_BINLOG_DUMP_GTID");
  }
}
