package org.binlogrelay.e2e.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.protocol.gtid.MariadbGtid;
import org.binlogrelay.protocol.gtid.MariadbGtidSet;
import org.binlogrelay.protocol.gtid.MysqlGtid;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.storage.Appended;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.StoreConfig;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The files a {@link BinlogStore} keeps are binlog files the servers' own tools read, with the
 * transactions the store says they hold. The fixture binlogs (real MySQL 9.7 and MariaDB 10.11
 * files) are replayed into a store as a primary's dump stream; then each stored file goes through
 * the flavour's own tool, {@code mysqlbinlog --verify-binlog-checksum -vv} (MySQL 9.7, in the
 * provisioned chroot) or {@code mariadb-binlog --verify-binlog-checksum -vv} of each MariaDB series
 * of the matrix (10.11 on the host, 11.8 in its chroot; see {@link BinlogTool}): it must exit with
 * 0, print no ERROR, and print exactly the GTIDs, header set (Previous-GTIDs / Gtid list) and count
 * of transactions the store's metadata gives for the file. Closed files must read as closed, the
 * open (last) file as in use ("this binlog is either in use or was not closed properly"), as the
 * primary's own would.
 *
 * <p>Neither tool reads the other flavour's files completely, the primary's own files included:
 * MySQL 9.7's mysqlbinlog stops at MariaDB's GTID_LIST event ("Could not read entry at offset
 * 256"), MariaDB's mariadb-binlog at MySQL 9.7's tagged GTID and TRANSACTION_PAYLOAD events. So the
 * other tool is only required to say of each stored file exactly what it says of the primary's
 * file: the same exit code and the same output.
 */
class StoredFilesReadableIT {

  /** Each fixture with the mariadb-binlog of each MariaDB series of the matrix. */
  static Stream<Arguments> fixturesAndMariadbSeries() {
    return Stream.of("mysql-9.7", "mariadb-10.11", "mariadb-11.8")
        .flatMap(
            fixture ->
                ServerVersion.mariadbSeries().stream()
                    .map(series -> Arguments.of(fixture, series)));
  }

  @ParameterizedTest(name = "{0}, mariadb-binlog of {1}")
  @MethodSource("fixturesAndMariadbSeries")
  void everyStoredFileReadsLikeThePrimarysWithTheServersTools(String fixture, ServerVersion mariadb)
      throws IOException {
    FixtureFiles source = FixtureFiles.load(fixture);
    Path work = workDirectory();
    try {
      Path dir = work.resolve("store");
      List<FileMetadata> files = replay(source, dir, null);
      assertThat(files).extracting(FileMetadata::name).isEqualTo(source.files);
      Path originals = Files.createDirectories(work.resolve("primary"));
      for (FileMetadata f : files) {
        Path stored = dir.resolve(f.name());
        assertThat(Files.readAllBytes(stored))
            .as(f.name() + " is the primary's, byte for byte")
            .isEqualTo(source.bytes.get(f.name()));
        BinlogTool.Dump own = ownTool(source, mariadb).read(stored);
        assertReadsAsStored(own, f, source.flavor);
        assertThat(own.gtids())
            .as("GTIDs of %s, as the server listed them", f.name())
            .isEqualTo(source.serverGtids(f.name()));

        Path original = Files.copy(source.paths.get(f.name()), originals.resolve(f.name()));
        BinlogTool.Dump ours = otherTool(source, mariadb).read(stored);
        BinlogTool.Dump theirs = otherTool(source, mariadb).read(original);
        assertThat(ours.exitCode())
            .as("%s on the stored and the primary's %s", ours.tool(), f.name())
            .isEqualTo(theirs.exitCode());
        assertThat(ours.outputWithoutPath())
            .as("%s on the stored and the primary's %s", ours.tool(), f.name())
            .isEqualTo(theirs.outputWithoutPath());
      }
      assertThat(files.get(files.size() - 1).closed())
          .as("the last file is open, as on the primary")
          .isFalse();
    } finally {
      deleteRecursively(work);
    }
  }

  /**
   * A store that ends inside a file (the stream stopped at a transaction boundary there): that file
   * is open, with its in-use flag, and reads up to where the store ends with the GTIDs the store
   * reports for it.
   */
  @ParameterizedTest(name = "{0}, mariadb-binlog of {1}")
  @MethodSource("fixturesAndMariadbSeries")
  void aStoreEndingInsideAFileReadsUpToThere(String fixture, ServerVersion mariadb)
      throws IOException {
    FixtureFiles source = FixtureFiles.load(fixture);
    for (String last : List.of(source.files.get(1), source.files.get(source.files.size() - 1))) {
      Path work = workDirectory();
      try {
        Path dir = work.resolve("store");
        List<FileMetadata> files = replay(source, dir, last);
        FileMetadata open = files.get(files.size() - 1);
        assertThat(open.name()).isEqualTo(last);
        assertThat(open.closed()).isFalse();
        assertThat(open.size())
            .as("the store ends inside " + last)
            .isLessThan(source.bytes.get(last).length);
        byte flags = Files.readAllBytes(dir.resolve(last))[4 + EventHeader.FLAGS_OFFSET];
        assertThat(flags & EventHeader.LOG_EVENT_BINLOG_IN_USE_F)
            .as("in-use flag of " + last)
            .isNotZero();
        for (FileMetadata f : files) {
          assertReadsAsStored(
              ownTool(source, mariadb).read(dir.resolve(f.name())), f, source.flavor);
        }
      } finally {
        deleteRecursively(work);
      }
    }
  }

  /**
   * Replays the fixtures into a new store in {@code dir} and closes it; with {@code stopIn}, stops
   * at the first transaction boundary past a third of that file. Returns the store's files as it
   * reported them before closing.
   */
  private static List<FileMetadata> replay(FixtureFiles source, Path dir, String stopIn)
      throws IOException {
    StoreConfig config = StoreConfig.builder(dir, source.flavor).maxEventSize(16 << 20).build();
    try (BinlogStore store = BinlogStore.open(config)) {
      assertThat(store.startStream()).as("a new store starts empty").isEmpty();
      for (BinlogEvent e : source.dumpStream()) {
        Appended a = store.append(e);
        Position p = a.position();
        if (stopIn != null
            && a.completedTransaction()
            && p.file().equals(stopIn)
            && p.offset() > source.bytes.get(stopIn).length / 3) {
          break;
        }
      }
      store.sync().join();
      return store.files();
    }
  }

  /**
   * The tool read the whole file without an error, and found the transactions the store reports.
   */
  private static void assertReadsAsStored(BinlogTool.Dump dump, FileMetadata f, GtidFlavor flavor) {
    assertThat(dump.exitCode()).as("%s", dump).isZero();
    assertThat(dump.output()).as("%s", dump).doesNotContain("ERROR");
    assertThat(dump.warnsInUse())
        .as("%s warns that %s is in use", dump.tool(), f.name())
        .isEqualTo(!f.closed());
    List<String> gtids = dump.gtids();
    assertThat(gtids)
        .as("GTIDs %s prints for %s", dump.tool(), f.name())
        .hasSize((int) f.transactions());
    if (!gtids.isEmpty()) {
      assertThat(sameGtid(gtids.get(0), f.firstGtid(), flavor))
          .as("first GTID of %s: tool %s, store %s", f.name(), gtids.get(0), f.firstGtid())
          .isTrue();
      assertThat(sameGtid(gtids.get(gtids.size() - 1), f.lastGtid(), flavor))
          .as(
              "last GTID of %s: tool %s," + " store %s",
              f.name(), gtids.get(gtids.size() - 1), f.lastGtid())
          .isTrue();
    }
    String header = dump.headerSet();
    assertThat(header).as("%s prints the header set of %s", dump.tool(), f.name()).isNotNull();
    assertThat(parseSet(header, flavor))
        .as("header set of %s", f.name())
        .isEqualTo(f.gtidsAtStart());
    GtidSet end = f.gtidsAtStart();
    for (String g : gtids) {
      if (flavor == GtidFlavor.MYSQL) {
        ((MysqlGtidSet) end).add(MysqlGtid.parse(g));
      } else {
        ((MariadbGtidSet) end).add(MariadbGtid.parse(g));
      }
    }
    assertThat(end)
        .as("the header set plus the GTIDs %s prints for %s", dump.tool(), f.name())
        .isEqualTo(f.gtidsAtEnd());
  }

  private static boolean sameGtid(String tool, String store, GtidFlavor flavor) {
    if (store == null) {
      return false;
    }
    return flavor == GtidFlavor.MYSQL
        ? MysqlGtid.parse(tool).equals(MysqlGtid.parse(store))
        : MariadbGtid.parse(tool).equals(MariadbGtid.parse(store));
  }

  private static GtidSet parseSet(String text, GtidFlavor flavor) {
    return flavor == GtidFlavor.MYSQL ? MysqlGtidSet.parse(text) : MariadbGtidSet.parse(text);
  }

  private static BinlogTool ownTool(FixtureFiles source, ServerVersion mariadb) {
    return source.flavor == GtidFlavor.MYSQL
        ? BinlogTool.MYSQLBINLOG
        : BinlogTool.mariadbBinlog(mariadb);
  }

  private static BinlogTool otherTool(FixtureFiles source, ServerVersion mariadb) {
    return source.flavor == GtidFlavor.MYSQL
        ? BinlogTool.mariadbBinlog(mariadb)
        : BinlogTool.MYSQLBINLOG;
  }

  /** A new directory under the MySQL root's /tmp, where mysqlbinlog (chrooted) sees it too. */
  private static Path workDirectory() throws IOException {
    return Files.createTempDirectory(BinlogTool.mysqlRoot().resolve("tmp"), "binlog-relay-it-");
  }

  private static void deleteRecursively(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + dir + " after the test", e);
    }
  }
}
