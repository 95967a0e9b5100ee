package org.binlogrelay.server.serving;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.server.downstream.sql.BinlogListing;
import org.binlogrelay.storage.BinlogStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SHOW BINARY LOGS, status, GTID variables and BINLOG_GTID_POS() from the store, against the
 * servers' own values.
 */
class StoreBinlogListingTest {
  private final StoreFixtures mysql = StoreFixtures.mysql();
  private final StoreFixtures mariadb = StoreFixtures.mariadb();

  @TempDir Path dir;

  @Test
  void mysqlListingIsWhatTheServerShowed() throws Exception {
    try (BinlogStore store = mysql.store(dir)) {
      StoreBinlogListing listing = new StoreBinlogListing(store);
      assertThat(listing.files())
          .containsExactly(
              new BinlogListing.BinlogFile("binlog.000001", 4274),
              new BinlogListing.BinlogFile("binlog.000002", 2862),
              new BinlogListing.BinlogFile("binlog.000003", 206809));
      assertThat(listing.current()).contains(new BinlogListing.Position("binlog.000003", 206809));
      assertThat(listing.executedGtids())
          .isEqualTo(MysqlGtidSet.parse(mysql.expected.getProperty("gtid_executed")).toString())
          .contains(",\n");
      assertThat(listing.purgedGtids()).isEmpty();
      assertThat(listing.gtidPositionAt("binlog.000001", 4)).as("MariaDB only").isEmpty();

      StoreFixtures.settle(store);
      store.removeFilesBefore("binlog.000002");
      assertThat(listing.purgedGtids())
          .isEqualTo(
              MysqlGtidSet.parse(mysql.expected.getProperty("file.binlog.000002.previous_gtids"))
                  .toString());
      assertThat(listing.files()).hasSize(2);
    }
  }

  @Test
  void mariadbListingAndBinlogGtidPos() throws Exception {
    try (BinlogStore store = mariadb.store(dir)) {
      StoreBinlogListing listing = new StoreBinlogListing(store);
      assertThat(listing.executedGtids())
          .isEqualTo(mariadb.expected.getProperty("gtid_binlog_pos"));
      assertThat(listing.binlogState())
          .isEqualTo(mariadb.expected.getProperty("gtid_binlog_state"));

      String file = "mariadb-bin.000002";
      List<Long> starts = mariadb.eventStarts(file);
      int thirdGtid = GtidDumpTest.indexOfGtid(mariadb.events(file), 3);
      assertThat(listing.gtidPositionAt(file, 4)).contains("");
      assertThat(listing.gtidPositionAt("", 0)).as("first file, position raised to 4").contains("");
      assertThat(listing.gtidPositionAt(file, starts.get(thirdGtid))).contains("0-1-13,2-1-2");
      assertThat(listing.gtidPositionAt(file, 2038)).as("end of file").contains("0-1-16,2-1-3");
      assertThat(listing.gtidPositionAt(file, 5)).as("inside an event").isEqualTo(Optional.empty());
      assertThat(listing.gtidPositionAt(file, 99_999)).isEmpty();
      assertThat(listing.gtidPositionAt("mariadb-bin.000009", 4)).isEmpty();
      assertThat(listing.gtidPositionAt("../etc/passwd", 4)).isEmpty();
    }
  }
}
