package org.binlogrelay.server.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HexFormat;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.junit.jupiter.api.Test;

/** Byte layouts as MySQL's {@code register_replica} and {@code com_binlog_dump[_gtid]} read them. */
class ReplicationCommandsTest {
  private static String hex(byte[] b) {
    return HexFormat.of().formatHex(b);
  }

  @Test
  void registerReplica() {
    byte[] payload = ReplicationCommands.registerReplica(9001, "relay-1", 3307);
    assertThat(hex(payload)).isEqualTo("15" + "29230000" + "07" + hex("relay-1".getBytes()) + "00" + "00" + "eb0c"
        + "00000000" + "00000000");
  }

  @Test
  void registerReplicaRefusesAnOverlongHost() {
    assertThatThrownBy(() -> ReplicationCommands.registerReplica(1, "h".repeat(251), 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most 250");
  }

  @Test
  void binlogDump() {
    byte[] payload = ReplicationCommands.binlogDump("binlog.000042", 0x01020304L, 2, 0xaabbccddL);
    assertThat(hex(payload)).isEqualTo("12" + "04030201" + "0200" + "ddccbbaa" + hex("binlog.000042".getBytes()));
  }

  @Test
  void binlogDumpHasAFourByteOffset() {
    assertThatThrownBy(() -> ReplicationCommands.binlogDump("binlog.000001", 1L << 32, 0, 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("4-byte");
  }

  @Test
  void binlogDumpGtid() {
    MysqlGtidSet set = MysqlGtidSet.parse("3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5");
    byte[] encoded = set.encode();
    byte[] payload = ReplicationCommands.binlogDumpGtid(ReplicationCommands.BINLOG_THROUGH_GTID, 7, "", 4, encoded);
    assertThat(hex(payload)).isEqualTo("1e" + "0400" + "07000000" + "00000000" + "0400000000000000"
        + String.format("%02x000000", encoded.length) + hex(encoded));
    assertThat(encoded).hasSize(8 + 16 + 8 + 16);
  }

  @Test
  void query() {
    assertThat(ReplicationCommands.query("SELECT 1")).startsWith(3).endsWith("SELECT 1".getBytes());
  }
}
