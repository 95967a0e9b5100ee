package org.binlogrelay.e2e.campaign;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.ServerFlavor;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.protocol.gtid.MariadbGtid;
import org.binlogrelay.protocol.gtid.MariadbGtidSet;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.FileVerification;
import org.binlogrelay.storage.StoreConfig;

/**
 * Test side: the relay's data directory against the primary's binlog directory, the checks of the
 * upstream ITs ({@code RelayUnderTest}, {@code RelayProcessIT}) on directories: the same files in
 * the same order; every closed file byte for byte; a file the primary was writing when it was
 * SIGKILLed, and the file it writes now, byte for byte but for the FORMAT_DESCRIPTION's in-use flag
 * (byte 21), which the primary clears in place (at crash recovery, at rotation) without telling a
 * replica. Then the store itself, opened after the relay stopped: every file reads back clean
 * (sizes, CRC32, log_pos continuity), it holds as many transactions as the primary's GTIDs count
 * (each transaction once), and its executed GTIDs are the primary's.
 *
 * @param files how many files were compared
 * @param bytes their total size
 * @param crashEnded how many of them the primary's crash ended
 * @param transactions transactions in the stored files
 */
record StoredBinlogs(int files, long bytes, int crashEnded, long transactions) {
  /**
   * The FORMAT_DESCRIPTION's flags byte: 4 bytes of magic number, then flags at 17 in the header.
   */
  private static final int IN_USE_FLAG_OFFSET = 4 + 17;

  /** Binlog file name to size, in index order; empty before the index exists. */
  static Map<String, Long> sizes(Path binlogDir) {
    Map<String, Long> sizes = new LinkedHashMap<>();
    Path index = binlogDir.resolve("binlog.index");
    try {
      if (!Files.exists(index)) {
        return sizes;
      }
      for (String line : Files.readAllLines(index, StandardCharsets.UTF_8)) {
        String name = line.isBlank() ? "" : Path.of(line.strip()).getFileName().toString();
        if (!name.isEmpty()) {
          Path file = binlogDir.resolve(name);
          sizes.put(name, Files.exists(file) ? Files.size(file) : -1L);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return sizes;
  }

  /**
   * Waits until the relay's files are the primary's, each as long (the load has stopped; MariaDB's
   * late BINLOG_CHECKPOINT events are waited for too).
   */
  static void awaitSameSizes(
      Path relayDir, DatabaseServer primary, RelayDaemon relay, Duration timeout)
      throws InterruptedException {
    eventually(
        timeout,
        "the relay's files as long as the primary's [primary, relay]",
        () -> {
          relay.requireNoUnexpectedEnd();
          return List.of(sizes(primary.binlogDir()), sizes(relayDir));
        },
        both -> both.get(0).equals(both.get(1)));
  }

  /** Compares the directories and verifies the store; fails with the first difference. */
  static StoredBinlogs compare(Path relayDir, DatabaseServer primary, Set<String> crashEnded)
      throws IOException {
    Path primaryDir = primary.binlogDir();
    Map<String, Long> ours = sizes(relayDir);
    Map<String, Long> theirs = sizes(primaryDir);
    assertThat(ours.keySet())
        .as("the relay's binlog files vs the primary's")
        .containsExactlyElementsOf(theirs.keySet());
    List<String> names = List.copyOf(ours.keySet());
    long bytes = 0;
    int crashEndedCompared = 0;
    for (int i = 0; i < names.size(); i++) {
      String name = names.get(i);
      Path a = relayDir.resolve(name);
      Path b = primaryDir.resolve(name);
      boolean open = i == names.size() - 1;
      if (open || crashEnded.contains(name)) {
        byte[] stored = masked(Files.readAllBytes(a));
        byte[] original = masked(Files.readAllBytes(b));
        assertThat(Arrays.mismatch(stored, original))
            .as(
                "first differing byte of "
                    + name
                    + " ("
                    + (open ? "open on the primary" : "crash-ended")
                    + ", in-use flag masked)")
            .isEqualTo(-1);
        crashEndedCompared += open ? 0 : 1;
      } else {
        assertThat(Files.mismatch(a, b))
            .as("first differing byte of closed " + name)
            .isEqualTo(-1L);
      }
      bytes += Files.size(a);
    }
    boolean mysql = primary.flavor() == ServerFlavor.MYSQL;
    long transactions = 0;
    try (BinlogStore store =
        BinlogStore.open(
            StoreConfig.builder(relayDir, mysql ? GtidFlavor.MYSQL : GtidFlavor.MARIADB).build())) {
      for (FileMetadata f : store.files()) {
        FileVerification v = store.verify(f.name());
        assertThat(v.problem()).as("verification of stored " + f.name()).isNull();
        transactions += v.transactions();
      }
      GtidSet primaryGtids =
          mysql
              ? MysqlGtidSet.parse(primary.queryValue("SELECT @@global.gtid_executed"))
              : MariadbGtidSet.parse(primary.queryValue("SELECT @@global.gtid_binlog_state"));
      assertThat(store.executedGtids())
          .as("the store's executed GTIDs vs the primary's")
          .isEqualTo(primaryGtids);
    }
    assertThat(transactions)
        .as("transactions in the stored files (each GTID once)")
        .isEqualTo(transactionsOf(primary));
    return new StoredBinlogs(names.size(), bytes, crashEndedCompared, transactions);
  }

  /** How many transactions the primary's history holds (one origin, numbered from 1). */
  static long transactionsOf(DatabaseServer primary) {
    if (primary.flavor() == ServerFlavor.MYSQL) {
      return MysqlGtidSet.parse(primary.queryValue("SELECT @@global.gtid_executed"))
          .size()
          .longValueExact();
    }
    MariadbGtidSet pos =
        MariadbGtidSet.parsePosition(primary.queryValue("SELECT @@global.gtid_binlog_pos"));
    return pos.newest(0).map(MariadbGtid::seqNo).orElse(0L);
  }

  private static byte[] masked(byte[] file) {
    if (file.length > IN_USE_FLAG_OFFSET) {
      file[IN_USE_FLAG_OFFSET] &= (byte) ~0x01;
    }
    return file;
  }
}
