package org.binlogrelay.server.serving;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.query.ColumnDefinition;
import org.binlogrelay.protocol.query.TextResultSet;
import org.binlogrelay.server.downstream.sql.BinlogListing;
import org.binlogrelay.server.downstream.sql.Columns;
import org.binlogrelay.server.downstream.sql.SqlFlavor;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.read.testing.TestStores;
import org.binlogrelay.storage.testing.DirectoryArchiveTier;
import org.binlogrelay.storage.tier.TieredBinlog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SHOW BINARY LOGS with an archive: archive-only files are listed before the store's, each with its
 * tier ({@code archive}, {@code local,archive}, {@code local}) in a trailing {@code Tier} column,
 * on MySQL and MariaDB; without an archive, the columns and rows are the servers' own, unchanged.
 */
class TieredListingTest {
  private final StoreFixtures mysql = StoreFixtures.mysql();

  @TempDir Path dir;

  @Test
  void archiveOnlyFilesAreListedWithTheirTier() throws Exception {
    List<String> f = mysql.files;
    try (BinlogStore store = mysql.store(dir.resolve("store"))) {
      TestStores.settle(store);
      // binlog.000001 and .000002 archived, .000001 then removed locally; .000003 only local
      DirectoryArchiveTier tier =
          DirectoryArchiveTier.of(dir.resolve("tier"), store, f.subList(0, 2));
      store.removeFilesBefore(f.get(1));
      StoreBinlogListing listing =
          new StoreBinlogListing(new TieredBinlog(store, tier), store, tier);

      assertThat(listing.files())
          .containsExactly(
              new BinlogListing.BinlogFile("binlog.000001", 4274, "archive"),
              new BinlogListing.BinlogFile("binlog.000002", 2862, "local,archive"),
              new BinlogListing.BinlogFile("binlog.000003", 206809, "local"));

      for (GtidFlavor flavor : GtidFlavor.values()) {
        SqlFlavor sql = SqlFlavor.of(flavor);
        TextResultSet rows = sql.binaryLogs(new Columns(sql.collationId()), listing.files());
        List<String> names = rows.columns().stream().map(ColumnDefinition::name).toList();
        assertThat(names).as(flavor.name()).endsWith("Tier").startsWith("Log_name", "File_size");
        assertThat(rows.rows().get(0)).as(flavor.name()).endsWith("archive");
        assertThat(rows.rows().get(1)).as(flavor.name()).endsWith("local,archive");
        assertThat(rows.rows().get(2)).as(flavor.name()).endsWith("local");
      }
    }
  }

  @Test
  void withoutAnArchiveTheColumnsAreTheServers() throws Exception {
    try (BinlogStore store = mysql.store(dir.resolve("store"))) {
      StoreBinlogListing listing = new StoreBinlogListing(store);
      assertThat(listing.files()).allSatisfy(f -> assertThat(f.tier()).isNull());
      SqlFlavor my = SqlFlavor.of(GtidFlavor.MYSQL);
      TextResultSet rows = my.binaryLogs(new Columns(my.collationId()), listing.files());
      assertThat(rows.columns().stream().map(ColumnDefinition::name))
          .containsExactly("Log_name", "File_size", "Encrypted");
      assertThat(rows.rows().get(0)).containsExactly("binlog.000001", "4274", "No");
      SqlFlavor maria = SqlFlavor.of(GtidFlavor.MARIADB);
      rows = maria.binaryLogs(new Columns(maria.collationId()), listing.files());
      assertThat(rows.columns().stream().map(ColumnDefinition::name))
          .containsExactly("Log_name", "File_size");
      assertThat(rows.rows().get(0)).containsExactly("binlog.000001", "4274");
    }
  }
}
