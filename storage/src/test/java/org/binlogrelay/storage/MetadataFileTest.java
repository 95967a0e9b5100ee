package org.binlogrelay.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.MariadbGtidSet;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.protocol.testing.RandomCases;
import org.junit.jupiter.api.Test;

class MetadataFileTest {
  private static final FileMetadata MYSQL =
      new FileMetadata(
          "binlog.000003",
          GtidFlavor.MYSQL,
          true,
          206809,
          6,
          MysqlGtidSet.parse(
              "11111111-2222-3333-4444-555555555555:1:othertag:7,3b1e7c52-0000-4000-8000-00000000f001:1-16"),
          MysqlGtidSet.parse(
              "11111111-2222-3333-4444-555555555555:1:othertag:7,3b1e7c52-0000-4000-8000-00000000f001:1-21"),
          "3b1e7c52-0000-4000-8000-00000000f001:17",
          "3b1e7c52-0000-4000-8000-00000000f001:21",
          1795320670,
          1795320672,
          FileMetadata.Ending.ROTATE,
          "binlog.000004");
  private static final FileMetadata MARIADB =
      new FileMetadata(
          "mariadb-bin.000002",
          GtidFlavor.MARIADB,
          false,
          1989,
          6,
          MariadbGtidSet.parse("0-2-9,0-1-11,2-1-2"),
          MariadbGtidSet.parse("0-2-9,0-1-16,2-1-3"),
          "0-1-12",
          "2-1-3",
          1795320675,
          1795320676,
          FileMetadata.Ending.NONE,
          null);

  @Test
  void roundTripsBothFlavours() throws Exception {
    assertThat(
            MetadataFile.decode(
                MetadataFile.encode(MYSQL, MysqlBinlogFlavor.INSTANCE),
                MYSQL.name(),
                MysqlBinlogFlavor.INSTANCE))
        .isEqualTo(MYSQL);
    assertThat(
            MetadataFile.decode(
                MetadataFile.encode(MARIADB, MariadbBinlogFlavor.INSTANCE),
                MARIADB.name(),
                MariadbBinlogFlavor.INSTANCE))
        .isEqualTo(MARIADB);
    String text =
        new String(MetadataFile.encode(MYSQL, MysqlBinlogFlavor.INSTANCE), StandardCharsets.UTF_8);
    assertThat(text)
        .startsWith("binlog-relay-metadata 1\nname=binlog.000003\nflavor=MYSQL\nclosed=true\n")
        .contains(
            "\ngtids_at_end=11111111-2222-3333-4444-555555555555:1:othertag:7,3b1e7c52-0000-4000-8000-00000000f001:1-21\n")
        .containsPattern("\ncrc32=[0-9a-f]{8}\n$");
  }

  @Test
  void anyDamageIsDetected() {
    byte[] good = MetadataFile.encode(MARIADB, MariadbBinlogFlavor.INSTANCE);
    RandomCases.check(
        "metadata damage is detected",
        300,
        r -> {
          byte[] bad = good.clone();
          int at = r.nextInt(bad.length);
          bad[at] ^= (byte) (1 + r.nextInt(255));
          assertThatThrownBy(
                  () -> MetadataFile.decode(bad, MARIADB.name(), MariadbBinlogFlavor.INSTANCE))
              .isInstanceOf(MetadataFile.DamagedException.class);
        });
    byte[] cut = Arrays.copyOf(good, good.length - 5);
    assertThatThrownBy(() -> MetadataFile.decode(cut, MARIADB.name(), MariadbBinlogFlavor.INSTANCE))
        .isInstanceOf(MetadataFile.DamagedException.class);
    assertThatThrownBy(
            () -> MetadataFile.decode(good, "mariadb-bin.000003", MariadbBinlogFlavor.INSTANCE))
        .hasMessageContaining("describes mariadb-bin.000002");
    assertThatThrownBy(() -> MetadataFile.decode(good, MARIADB.name(), MysqlBinlogFlavor.INSTANCE))
        .hasMessageContaining("written for MARIADB");
  }

  @Test
  void positionsOrderByFileSequenceThenOffset() {
    assertThat(new Position("binlog.000009", 900)).isLessThan(new Position("binlog.000010", 4));
    assertThat(new Position("binlog.999999", 4)).isLessThan(new Position("binlog.1000000", 4));
    assertThat(new Position("binlog.000010", 4)).isLessThan(new Position("binlog.000010", 5));
    assertThat(BinlogFileName.next("binlog.000009")).isEqualTo("binlog.000010");
    assertThat(BinlogFileName.next("binlog.999999")).isEqualTo("binlog.1000000");
    assertThat(BinlogFileName.isValid("../etc.000001")).isFalse();
    assertThat(BinlogFileName.isValid("binlog.index")).isFalse();
    assertThat(BinlogFileName.isValid("binlog.000001.meta")).isFalse();
  }
}
