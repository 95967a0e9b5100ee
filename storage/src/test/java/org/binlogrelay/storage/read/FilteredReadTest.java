package org.binlogrelay.storage.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.binlogrelay.protocol.gtid.MariadbGtid;
import org.binlogrelay.protocol.gtid.MariadbGtidSet;
import org.binlogrelay.protocol.gtid.MysqlGtid;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.protocol.testing.RandomCases;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.read.testing.SourceFiles;
import org.binlogrelay.storage.read.testing.SourceFiles.Tx;
import org.binlogrelay.storage.read.testing.TestStores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Readers with a GTID filter send exactly the transactions the replica lacks, for both flavours'
 * rules.
 */
class FilteredReadTest {
  private static final String UUID = "3b1e7c52-0000-4000-8000-00000000f001";

  @TempDir Path dir;

  @Test
  void mysqlSkipsEveryTransactionInTheReplicasSet() throws Exception {
    SourceFiles source = SourceFiles.mysql();
    MysqlGtidSet replica =
        MysqlGtidSet.parse(UUID + ":1-5:9:17-18:mytag:1,11111111-2222-3333-4444-555555555555:1");
    try (BinlogStore store = TestStores.filled(dir, source)) {
      RandomCases.check(
          "mysql filtered read",
          20,
          rnd -> {
            try (BinlogReader reader =
                BinlogReader.open(
                    store,
                    Position.startOf(source.files.get(0)),
                    ReaderOptions.defaults()
                        .withMaxBatchBytes(1 + rnd.nextInt(3000))
                        .withFilter(new MysqlGtidFilter(replica)))) {
              Collected c = Collected.drain(reader, rnd.nextBoolean());
              assertSent(source, c, t -> replica.contains((MysqlGtid) t.gtid()));
            } catch (Exception e) {
              throw new AssertionError(e);
            }
          });
    }
  }

  @Test
  void mariadbSkipsEachDomainUpToTheReplicasGtid() throws Exception {
    SourceFiles source = SourceFiles.mariadb();
    Map<Long, MariadbGtid> waitFor =
        Map.of(0L, MariadbGtid.parse("0-1-5"), 2L, MariadbGtid.parse("2-1-1"));
    try (BinlogStore store = TestStores.filled(dir, source)) {
      RandomCases.check(
          "mariadb filtered read",
          20,
          rnd -> {
            MariadbGtidFilter filter =
                new MariadbGtidFilter(
                    waitFor, Set.of(), false, () -> (MariadbGtidSet) store.executedGtids());
            try (BinlogReader reader =
                BinlogReader.open(
                    store,
                    Position.startOf(source.files.get(0)),
                    ReaderOptions.defaults()
                        .withMaxBatchBytes(1 + rnd.nextInt(3000))
                        .withFilter(filter))) {
              Collected c = Collected.drain(reader, rnd.nextBoolean());
              assertSent(source, c, mariadbModel(waitFor));
              assertThat(filter.waitingFor()).isEmpty();
            } catch (Exception e) {
              throw new AssertionError(e);
            }
          });
    }
  }

  @Test
  void mariadbStrictModeRefusesAPositionInAHole() throws Exception {
    SourceFiles source = SourceFiles.mariadb();
    Map<Long, MariadbGtid> waitFor = Map.of(0L, MariadbGtid.parse("0-1-50"));
    try (BinlogStore store = TestStores.filled(dir, source)) {
      for (boolean strict : new boolean[] {false, true}) {
        MariadbGtidFilter filter =
            new MariadbGtidFilter(
                waitFor, Set.of(), strict, () -> (MariadbGtidSet) store.executedGtids());
        try (BinlogReader reader =
            BinlogReader.open(
                store,
                Position.startOf(source.lastFile()),
                ReaderOptions.defaults().withFilter(filter))) {
          if (strict) {
            assertThatThrownBy(() -> Collected.drain(reader, false))
                .isInstanceOfSatisfying(
                    MariadbStartException.class,
                    e -> {
                      assertThat(e.kind()).isEqualTo(MariadbStartException.Kind.HOLE);
                      assertThat(e.gtid()).isEqualTo(MariadbGtid.parse("0-1-50"));
                    })
                .hasMessage(
                    "The binlog on the master is missing the GTID 0-1-50 requested by the slave (even though"
                        + " both a prior and a subsequent sequence number does exist), and GTID strict mode is enabled");
          } else {
            Collected c = Collected.drain(reader, false);
            assertThat(c.skipped).isEmpty();
          }
        }
      }
    }
  }

  @Test
  void mariadbChecksADomainEmptyAtConnectTimeWhenItsFirstGroupArrives() throws Exception {
    SourceFiles source = SourceFiles.mariadb();
    // Domain 2 is not in the binlog before binlog 1's 2-1-1, so a replica asking for 2-1-7 in it is
    // accepted
    // at connect time (as "empty domain") and refused when the domain's first group comes.
    Map<Long, MariadbGtid> waitFor = Map.of(2L, MariadbGtid.parse("2-1-7"));
    Path d = Files.createTempDirectory(dir, "s");
    try (BinlogStore store = TestStores.filled(d, source)) {
      MariadbGtidFilter filter =
          new MariadbGtidFilter(
              waitFor, Set.of(2L), false, () -> (MariadbGtidSet) store.executedGtids());
      try (BinlogReader reader =
          BinlogReader.open(
              store,
              Position.startOf(source.files.get(0)),
              ReaderOptions.defaults().withFilter(filter))) {
        assertThatThrownBy(() -> Collected.drain(reader, false))
            .isInstanceOfSatisfying(
                MariadbStartException.class,
                e -> assertThat(e.kind()).isEqualTo(MariadbStartException.Kind.NOT_IN_BINLOG))
            .hasMessage(
                "Error: connecting slave requested to start from GTID 2-1-7, which is not in the master's"
                    + " binlog");
      }
    }
  }

  @Test
  void aLongRunOfSkippedTransactionsComesInBoundedParts() throws Exception {
    SourceFiles source = SourceFiles.mysql();
    MysqlGtidSet everything =
        MysqlGtidSet.parse(
            UUID
                + ":1-1000000:mytag:1-1000000,"
                + "11111111-2222-3333-4444-555555555555:1-1000000");
    int batch = 100;
    try (BinlogStore store = TestStores.filled(dir, source);
        BinlogReader reader =
            BinlogReader.open(
                store,
                Position.startOf(source.files.get(0)),
                ReaderOptions.defaults()
                    .withMaxBatchBytes(batch)
                    .withFilter(new MysqlGtidFilter(everything)))) {
      Collected c = Collected.drain(reader, false);
      long largest = 0;
      for (String f : source.files) {
        for (Tx t : source.transactionsOf(f)) {
          largest = Math.max(largest, t.end() - t.start());
        }
      }
      assertThat(c.skipped).as("parts").hasSizeGreaterThan(source.files.size());
      for (Skipped s : c.skipped) {
        assertThat(s.to() - s.from())
            .as(s.toString())
            .isLessThan((long) batch * FilteredRange.MAX_SKIP_BATCHES + largest);
      }
      assertSent(source, c, t -> everything.contains((MysqlGtid) t.gtid()));
    }
  }

  /**
   * Adjacent runs joined: a reader that catches up inside a run of skipped transactions reports it
   * in parts.
   */
  private static List<Skipped> merged(List<Skipped> runs) {
    List<Skipped> out = new ArrayList<>();
    for (Skipped s : runs) {
      Skipped last = out.isEmpty() ? null : out.get(out.size() - 1);
      if (last != null && last.file().equals(s.file()) && last.to() == s.from()) {
        out.set(
            out.size() - 1,
            new Skipped(s.file(), last.from(), s.to(), last.transactions() + s.transactions()));
      } else {
        out.add(s);
      }
    }
    return out;
  }

  /** MariaDB's rules, written independently of {@link MariadbGtidFilter}. */
  static Predicate<Tx> mariadbModel(Map<Long, MariadbGtid> waitFor) {
    Map<Long, MariadbGtid> waiting = new HashMap<>(waitFor);
    return t -> {
      MariadbGtid g = (MariadbGtid) t.gtid();
      MariadbGtid w = waiting.get(g.domainId());
      if (w == null) {
        return false;
      }
      if (g.serverId() == w.serverId() && g.seqNo() >= w.seqNo()) {
        waiting.remove(g.domainId());
        return g.seqNo() == w.seqNo();
      }
      return true;
    };
  }

  /**
   * The reader sent every file minus the transactions {@code skipped} picks, and reported those as
   * skipped.
   */
  static void assertSent(SourceFiles source, Collected c, Predicate<Tx> skipped) {
    Map<String, ByteArrayOutputStream> expected = new LinkedHashMap<>();
    List<Skipped> expectedSkips = new ArrayList<>();
    for (String f : source.files) {
      byte[] bytes = source.bytes(f);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      long at = 4;
      Skipped run = null;
      for (Tx t : source.transactionsOf(f)) {
        if (!skipped.test(t)) {
          continue;
        }
        out.write(bytes, (int) at, (int) (t.start() - at));
        at = t.end();
        if (run != null && run.to() == t.start()) {
          run = new Skipped(f, run.from(), t.end(), run.transactions() + 1);
          expectedSkips.set(expectedSkips.size() - 1, run);
        } else {
          run = new Skipped(f, t.start(), t.end(), 1);
          expectedSkips.add(run);
        }
      }
      out.write(bytes, (int) at, (int) (bytes.length - at));
      expected.put(f, out);
    }
    assertThat(merged(c.skipped)).isEqualTo(expectedSkips);
    for (String f : source.files) {
      assertThat(SourceFiles.firstDifference(c.of(f), expected.get(f).toByteArray(), 4))
          .as(f)
          .isEqualTo(-1);
    }
  }
}
