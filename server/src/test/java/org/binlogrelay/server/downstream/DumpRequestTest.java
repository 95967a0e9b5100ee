package org.binlogrelay.server.downstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.bytes.ByteWriter;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.junit.jupiter.api.Test;

class DumpRequestTest {

  @Test
  void fileAndPositionDumpAsMysqlbinlogSendsIt() {
    // mysqlbinlog 9.7: flags BINLOG_DUMP_NON_BLOCK, server id 0, binlog.000001 at 4.
    byte[] payload =
        new ByteWriter().u8(0x12).u32(4).u16(1).u32(0).string("binlog.000001").toByteArray();
    DumpRequest r = DumpRequest.decode(payload);
    assertThat(r)
        .isEqualTo(new DumpRequest(Command.COM_BINLOG_DUMP, 0, 1, "binlog.000001", 4, null));
    assertThat(r.nonBlocking()).isTrue();
    assertThat(r.encode()).isEqualTo(payload);
  }

  @Test
  void gtidDumpReadsTheSetWhateverTheFlags() {
    MysqlGtidSet set = MysqlGtidSet.parse("3E11FA47-71CA-11E1-9E33-C80AA9429562:1-5:7");
    // MySQL 9.7 replicas send flags 0x02 (heartbeat v2), binlog-connector-java 0; both carry the
    // set.
    for (int flags : new int[] {0, 2, 4}) {
      byte[] data = set.encode();
      byte[] payload =
          new ByteWriter()
              .u8(0x1e)
              .u16(flags)
              .u32(4242)
              .u32(0)
              .u64(4)
              .u32(data.length)
              .bytes(data)
              .toByteArray();
      DumpRequest r = DumpRequest.decode(payload);
      assertThat(r.startGtids()).isEqualTo(set);
      assertThat(r.serverId()).isEqualTo(4242);
      assertThat(r.heartbeatV2()).isEqualTo(flags == 2);
    }
  }

  @Test
  void gtidDumpWithoutDataHasNoSet() {
    byte[] payload =
        new ByteWriter().u8(0x1e).u16(0).u32(1).u32(3).string("b.1").u64(120).toByteArray();
    assertThat(DumpRequest.decode(payload))
        .isEqualTo(new DumpRequest(Command.COM_BINLOG_DUMP_GTID, 1, 0, "b.1", 120, null));
  }

  @Test
  void fileNameEndsAtItsFirstNulAsTheServersReadIt() {
    // zongji (@vlasky/zongji 0.9): COM_BINLOG_DUMP ends the name with a zero byte, also with
    // startAtEnd.
    byte[] zongji =
        new ByteWriter().u8(0x12).u32(4).u16(0).u32(77).string("binlog.000001").u8(0).toByteArray();
    assertThat(DumpRequest.decode(zongji))
        .isEqualTo(new DumpRequest(Command.COM_BINLOG_DUMP, 77, 0, "binlog.000001", 4, null));
    // zongji without a file name: only the terminator, i.e. the empty name (the first file).
    byte[] zongjiNoFile = new ByteWriter().u8(0x12).u32(4).u16(0).u32(77).u8(0).toByteArray();
    assertThat(DumpRequest.decode(zongjiNoFile).binlogFile()).isEmpty();
    // python-mysql-replication (mysql-replication 1.0) on MariaDB: a name of zero bytes, by
    // position and by GTID.
    // Its packet header says 14 bytes, so the server reads three of the four zeros; either way the
    // name is empty.
    for (int zeros : new int[] {3, 4}) {
      byte[] python =
          new ByteWriter().u8(0x12).u32(4).u16(0).u32(78).bytes(new byte[zeros]).toByteArray();
      assertThat(DumpRequest.decode(python))
          .isEqualTo(new DumpRequest(Command.COM_BINLOG_DUMP, 78, 0, "", 4, null));
    }
    // Whatever follows the first NUL is not part of the name, and does not count against the length
    // limit.
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
    assertThat(DumpRequest.decode(trailing).binlogFile()).isEqualTo("binlog.000002");
  }

  @Test
  void gtidDumpFileNameOfZerosIsTheEmptyName() {
    // python-mysql-replication with auto_position on MySQL: name length 3, name "\0\0\0", position
    // 4, flags
    // BINLOG_THROUGH_GTID, then the set.
    MysqlGtidSet set = MysqlGtidSet.parse("3E11FA47-71CA-11E1-9E33-C80AA9429562:1-5");
    byte[] data = set.encode();
    byte[] payload =
        new ByteWriter()
            .u8(0x1e)
            .u16(4)
            .u32(79)
            .u32(3)
            .bytes(new byte[3])
            .u64(4)
            .u32(data.length)
            .bytes(data)
            .toByteArray();
    assertThat(DumpRequest.decode(payload))
        .isEqualTo(new DumpRequest(Command.COM_BINLOG_DUMP_GTID, 79, 4, "", 4, set));
    // A name with a NUL inside its declared length is cut there; the position still follows the
    // declared length.
    byte[] cut =
        new ByteWriter()
            .u8(0x1e)
            .u16(0)
            .u32(1)
            .u32(6)
            .string("b.1")
            .bytes(new byte[] {0, 'x', 'y'})
            .u64(120)
            .toByteArray();
    assertThat(DumpRequest.decode(cut))
        .isEqualTo(new DumpRequest(Command.COM_BINLOG_DUMP_GTID, 1, 0, "b.1", 120, null));
  }

  @Test
  void aNameLongerThanTheLimitBeforeItsNulIsRefused() {
    byte[] name = "a".repeat(513).getBytes(StandardCharsets.US_ASCII);
    byte[] dump = new ByteWriter().u8(0x12).u32(4).u16(0).u32(1).bytes(name).u8(0).toByteArray();
    assertThatThrownBy(() -> DumpRequest.decode(dump))
        .isInstanceOf(ProtocolException.class)
        .hasMessage("COM_BINLOG_DUMP: file name of 513 bytes, limit 512");
    byte[] longest =
        new ByteWriter()
            .u8(0x12)
            .u32(4)
            .u16(0)
            .u32(1)
            .bytes(Arrays.copyOf(name, 512))
            .u8(0)
            .toByteArray();
    assertThat(DumpRequest.decode(longest).binlogFile()).hasSize(512);
    assertThatThrownBy(() -> new DumpRequest(Command.COM_BINLOG_DUMP, 1, 0, "b.1\0", 4, null))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void refusesMalformedRequestsNamingTheField() {
    assertThatThrownBy(() -> DumpRequest.decode(new byte[] {0x1e, 0, 0}))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("COM_BINLOG_DUMP_GTID server id");
    byte[] longName = new ByteWriter().u8(0x1e).u16(0).u32(1).u32(100_000).toByteArray();
    assertThatThrownBy(() -> DumpRequest.decode(longName))
        .hasMessageContaining("file name of 100000 bytes, limit 512");
    byte[] dataPastEnd =
        new ByteWriter().u8(0x1e).u16(4).u32(1).u32(0).u64(4).u32(1000).u64(0).toByteArray();
    assertThatThrownBy(() -> DumpRequest.decode(dataPastEnd)).isInstanceOf(ProtocolException.class);
    byte[] trailing =
        new ByteWriter().u8(0x1e).u16(4).u32(1).u32(0).u64(4).u32(9).u64(0).u8(7).toByteArray();
    assertThatThrownBy(() -> DumpRequest.decode(trailing))
        .hasMessageContaining("1 bytes after the GTID set");
    assertThatThrownBy(() -> DumpRequest.decode(new byte[] {0x03}))
        .hasMessageContaining("not a dump command: COM_QUERY");
  }

  @Test
  void registrationAsAMysqlReplicaSendsIt() {
    byte[] payload =
        HexFormat.of()
            .parseHex("15" + "04000000" + "00" + "00" + "00" + "ffbf" + "00000000" + "00000000");
    ReplicaRegistration r = ReplicaRegistration.decode(payload);
    assertThat(r).isEqualTo(new ReplicaRegistration(4, "", "", false, 49151, 0, 0));
    assertThat(r.encode()).isEqualTo(payload);
    ReplicaRegistration full =
        new ReplicaRegistration(7, "replica-7.example", "repl", false, 3307, 0, 1);
    assertThat(ReplicaRegistration.decode(full.encode())).isEqualTo(full);
    assertThatThrownBy(() -> ReplicaRegistration.decode(new byte[] {0x15, 1, 0, 0, 0, 9, 'a'}))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("COM_REGISTER_SLAVE host");
  }
}
