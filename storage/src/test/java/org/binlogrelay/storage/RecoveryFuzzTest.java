package org.binlogrelay.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.NavigableMap;
import java.util.stream.Stream;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.BinlogFileParser;
import org.binlogrelay.protocol.event.CorruptEventException;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.event.FormatDescriptionEvent;
import org.binlogrelay.protocol.event.GtidListEvent;
import org.binlogrelay.protocol.event.PreviousGtidsEvent;
import org.binlogrelay.protocol.event.RotateEvent;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.protocol.gtid.MariadbGtid;
import org.binlogrelay.protocol.gtid.MariadbGtidSet;
import org.binlogrelay.protocol.gtid.MysqlGtid;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.protocol.testing.EventRepair;
import org.binlogrelay.protocol.txn.MariadbTransactionBoundaries;
import org.binlogrelay.protocol.txn.MysqlTransactionBoundaries;
import org.binlogrelay.protocol.txn.Transaction;
import org.binlogrelay.protocol.txn.TransactionBoundaries;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.LoggerFactory;

/**
 * Fuzz target for crash recovery (docs/fuzzing.md): a store holding a real server's binlog (two
 * closed files and the first transactions of the third, from the protocol fixtures) whose last file
 * then gets fuzzed bytes appended, overwritten, inserted or written after a cut, is opened; {@link
 * BinlogStore#open} runs {@link StoreRecovery}. The input:
 *
 * <pre>
 *   u8    flags: bit 0 MariaDB source (else MySQL); bit 1 repair the damaged events' CRC32 and bit 2 their
 *         log_pos (so damage that a checksum would catch at once can reach the trackers); bit 3 delete the
 *         last file's metadata (recovery scans the file from its start; else it continues from a checkpoint
 *         at a transaction boundary); bits 4-5: 0 append, 1 overwrite, 2 cut then append, 3 insert
 *   u8    which of the last file's transaction boundaries holds the checkpoint
 *   u16   where the damage starts, counted back from the end of the file (never before the checkpoint)
 *   rest  the bytes
 * </pre>
 *
 * Contract, checked against an independent reading of the damaged file with protocol classes only:
 * recovery keeps exactly the file's bytes up to the last transaction boundary before the first
 * event that is cut short, fails its checksum, has a wrong log_pos, breaks the transaction
 * structure, follows a ROTATE or STOP, or is a ROTATE, PREVIOUS_GTIDS or GTID_LIST the store could
 * never have written (nothing partial or corrupt is kept, nothing valid is dropped); removes the
 * file when its FORMAT_DESCRIPTION is not intact; reports the cut; rebuilds the GTID set at the
 * cut; leaves the closed files alone; and fails only with {@link StoreCorruptException} when the
 * file's FORMAT_DESCRIPTION is of the other flavour. The kept file reads back with no error and
 * ends at a transaction boundary.
 */
class RecoveryFuzzTest {
  private static final int MAX_EVENT_SIZE = 1 << 16;

  /** The stored part of the third file ends at its last transaction boundary below this. */
  private static final int TAIL_BYTES = 12_000;

  private static final long IN_USE_BYTE = BinlogFile.IN_USE_FLAG_OFFSET;

  private static Path root;
  private static Baseline mysql;
  private static Baseline mariadb;
  private static Level storageLogLevel;
  private static int caseNo;

  @BeforeAll
  static void baselines() throws IOException {
    Logger storageLog = (Logger) LoggerFactory.getLogger("org.binlogrelay.storage");
    storageLogLevel = storageLog.getLevel();
    storageLog.setLevel(
        Level.ERROR); // each recovery logs its cuts at WARN: millions of lines when fuzzing
    Path shm = Paths.get("/dev/shm");
    root =
        Files.createTempDirectory(
            Files.isDirectory(shm) && Files.isWritable(shm)
                ? shm
                : Paths.get(System.getProperty("java.io.tmpdir")),
            "recovery-fuzz");
    mysql = Baseline.of(SourceBinlog.mysql(), root.resolve("baseline-mysql"));
    mariadb = Baseline.of(SourceBinlog.mariadb(), root.resolve("baseline-mariadb"));
  }

  @AfterAll
  static void cleanUp() {
    ((Logger) LoggerFactory.getLogger("org.binlogrelay.storage")).setLevel(storageLogLevel);
    delete(root);
  }

  static Stream<Arguments> recoverDamagedTail() {
    List<byte[]> seeds = new ArrayList<>();
    for (int flavor = 0; flavor < 2; flavor++) {
      SourceBinlog source = flavor == 0 ? SourceBinlog.mysql() : SourceBinlog.mariadb();
      String tail = source.lastFile();
      byte[] file = source.bytes.get(tail);
      long target = tailEnd(source);
      // the transactions after the stored part: a crash in the middle of copying them
      byte[] next =
          Arrays.copyOfRange(file, (int) target, (int) Math.min(file.length, target + 3000));
      seeds.add(input(flavor, 0, 0, next));
      seeds.add(input(flavor | 8, 0, 0, next));
      // the last transactions again, after a cut a few hundred bytes back, with repaired log_pos
      seeds.add(
          input(
              flavor | 4 | (2 << 4),
              0,
              400,
              Arrays.copyOfRange(file, (int) target - 400, (int) target)));
      // a flipped byte in the middle of the stored part, metadata gone
      seeds.add(input(flavor | 8 | (1 << 4), 0, 700, new byte[] {0x5a}));
      // the first file's ROTATE and STOP appended (a file that was closed after all)
      byte[] first = source.bytes.get(source.files.get(0));
      List<byte[]> events = events(first);
      seeds.add(input(flavor | 2 | 4, 1, 0, events.get(events.size() - 1)));
      // the same events inserted before the last transaction, repaired
      seeds.add(
          input(
              flavor | 2 | 4 | (3 << 4),
              2,
              300,
              concat(events.subList(2, Math.min(8, events.size())))));
    }
    return seeds.stream().map(s -> arguments((Object) s));
  }

  @MethodSource
  @FuzzTest
  void recoverDamagedTail(byte[] input) throws IOException {
    if (input.length < 4) {
      return;
    }
    int flags = input[0] & 0xff;
    Baseline base = (flags & 1) == 0 ? mysql : mariadb;
    boolean keepMetadata = (flags & 8) == 0;
    int mode = (flags >>> 4) & 3;
    int back = (input[2] & 0xff) | (input[3] & 0xff) << 8;
    byte[] payload = Arrays.copyOfRange(input, 4, input.length);

    Path d = root.resolve("case-" + caseNo++);
    try {
      Stores.copyDirectory(base.dir, d);
      long checkpoint = 0;
      if (keepMetadata) {
        List<Long> candidates = base.checkpoints;
        checkpoint = candidates.get((input[1] & 0xff) % candidates.size());
        Stores.writeCheckpoint(d, base.source, base.tail, checkpoint, base.before);
      } else {
        Files.delete(d.resolve(MetadataFile.nameFor(base.tail)));
      }
      byte[] stored = base.tailBytes;
      int at = (int) Math.max(checkpoint, stored.length - back);
      byte[] damaged =
          switch (mode) {
            case 0 -> concat(List.of(stored, payload));
            case 1 -> overwrite(stored, at, payload);
            case 2 -> concat(List.of(Arrays.copyOf(stored, at), payload));
            default ->
                concat(
                    List.of(
                        Arrays.copyOf(stored, at),
                        payload,
                        Arrays.copyOfRange(stored, at, stored.length)));
          };
      EventRepair.repair(damaged, 4, (flags & 2) != 0, (flags & 4) != 0);
      Files.write(d.resolve(base.tail), damaged);

      Expected expected = Expected.of(damaged, base);
      StoreConfig config = Stores.config(d, base.source).maxEventSize(MAX_EVENT_SIZE).build();
      if (expected.otherFlavor) {
        assertThatThrownBy(() -> BinlogStore.open(config))
            .isInstanceOf(StoreCorruptException.class);
        return;
      }
      try (BinlogStore store = BinlogStore.open(config)) {
        check(store, base, d, damaged, expected);
      }
    } finally {
      delete(d);
    }
  }

  private static void check(
      BinlogStore store, Baseline base, Path d, byte[] damaged, Expected expected)
      throws IOException {
    RecoveryReport report = store.recoveryReport();
    String where = expected + "; recovery: " + report;
    for (String closed : base.source.files.subList(0, base.source.files.size() - 1)) {
      assertThat(Files.readAllBytes(d.resolve(closed)))
          .as("closed file %s", closed)
          .isEqualTo(base.source.bytes.get(closed));
    }
    Path tail = d.resolve(base.tail);
    if (expected.removed) {
      assertThat(Files.exists(tail)).as(where).isFalse();
      assertThat(store.executedGtids()).as(where).isEqualTo(base.before);
      assertThat(report.truncations())
          .as(where)
          .anySatisfy(
              t -> {
                assertThat(t.file()).isEqualTo(base.tail);
                assertThat(t.offset()).isZero();
              });
      return;
    }
    byte[] kept = Files.readAllBytes(tail);
    assertThat(kept.length).as("bytes kept; %s", where).isEqualTo(expected.cut);
    byte[] want = Arrays.copyOf(damaged, (int) expected.cut);
    if (kept.length > IN_USE_BYTE) {
      assertThat(kept[(int) IN_USE_BYTE] & EventHeader.LOG_EVENT_BINLOG_IN_USE_F)
          .as("in-use flag; %s", where)
          .isEqualTo(expected.ending == FileMetadata.Ending.NONE ? 1 : 0);
      want[(int) IN_USE_BYTE] = kept[(int) IN_USE_BYTE];
    }
    assertThat(kept)
        .as("the kept bytes are the damaged file's first %d; %s", expected.cut, where)
        .isEqualTo(want);
    assertThat(store.executedGtids()).as(where).isEqualTo(expected.gtids);
    assertThat(store.file(base.tail))
        .as(where)
        .hasValueSatisfying(
            f -> {
              assertThat(f.ending()).isEqualTo(expected.ending);
              assertThat(f.size()).isEqualTo(expected.cut);
            });
    if (expected.cut < damaged.length) {
      assertThat(report.truncations())
          .as(where)
          .singleElement()
          .satisfies(
              t -> {
                assertThat(t.file()).isEqualTo(base.tail);
                assertThat(t.offset()).isEqualTo(expected.cut);
                assertThat(t.bytes()).isEqualTo(damaged.length - expected.cut);
              });
    } else {
      assertThat(report.truncations()).as(where).isEmpty();
    }
    Expected reread = Expected.of(kept, base);
    assertThat(reread.problem).as("the kept file reads back without error; %s", where).isNull();
    assertThat(reread.cut).isEqualTo(kept.length);
  }

  /**
   * What recovery must make of a damaged last file, read with protocol classes only: the last
   * transaction boundary before the first event that is not right, the GTID set there, and how the
   * file ends.
   */
  private record Expected(
      boolean removed,
      boolean otherFlavor,
      long cut,
      GtidSet gtids,
      FileMetadata.Ending ending,
      String problem) {

    @SuppressWarnings({"unchecked", "rawtypes"})
    static Expected of(byte[] file, Baseline base) {
      boolean mysqlFlavor = base.source.flavor == GtidFlavor.MYSQL;
      BinlogFileParser parser;
      try {
        parser = new BinlogFileParser(file, MAX_EVENT_SIZE);
      } catch (CorruptEventException badMagic) {
        return new Expected(
            true, false, 0, base.before, FileMetadata.Ending.NONE, badMagic.getMessage());
      }
      TransactionBoundaries tracker =
          mysqlFlavor ? new MysqlTransactionBoundaries(4) : new MariadbTransactionBoundaries(4);
      GtidSet running = base.before.copy();
      GtidSet atBoundary = base.before.copy();
      FormatDescriptionEvent format = null;
      FileMetadata.Ending ending = FileMetadata.Ending.NONE;
      FileMetadata.Ending endingAtBoundary = FileMetadata.Ending.NONE;
      long cut = 4;
      String problem = null;
      while (parser.hasNext()) {
        int at = parser.position();
        BinlogEvent e;
        try {
          e = parser.next();
        } catch (CorruptEventException bad) {
          problem = bad.getMessage();
          break;
        }
        if (e.header().logPos() != e.end()) {
          problem = "log_pos " + e.header().logPos() + " of the event at " + at;
          break;
        }
        if (format == null && !mysqlFlavor != FormatDescriptionEvent.parse(e).isMariadb()) {
          return new Expected(false, true, 0, null, FileMetadata.Ending.NONE, "other flavour");
        }
        if (ending != FileMetadata.Ending.NONE) {
          problem = "event after " + ending;
          break;
        }
        if (e.type() == EventType.FORMAT_DESCRIPTION) {
          format = FormatDescriptionEvent.parse(e);
        }
        long boundaryBefore = tracker.lastBoundary();
        Transaction<?> done;
        try {
          done = tracker.accept(e, at);
          GtidSet header = null;
          if (mysqlFlavor && e.type() == EventType.PREVIOUS_GTIDS) {
            header = PreviousGtidsEvent.parse(e, format).gtids();
          } else if (!mysqlFlavor && e.type() == EventType.GTID_LIST) {
            header = GtidListEvent.parse(e, format).gtidSet();
          }
          if (e.type() == EventType.ROTATE) {
            RotateEvent rotate = RotateEvent.parse(e, format);
            if (!BinlogFileName.isValid(rotate.nextFile()) || rotate.position() != 4) {
              throw new ProtocolException("a ROTATE the writer never writes: " + rotate);
            }
            ending = FileMetadata.Ending.ROTATE;
          } else if (e.type() == EventType.STOP) {
            ending = FileMetadata.Ending.STOP;
          }
          if (header != null) {
            running = header.copy();
          }
        } catch (ProtocolException bad) {
          problem = bad.getMessage();
          cut = Math.min(boundaryBefore, tracker.lastBoundary());
          return new Expected(false, false, cut, atBoundary, endingAtBoundary, problem);
        }
        if (done != null && done.gtid() != null) {
          if (mysqlFlavor) {
            ((MysqlGtidSet) running).add((MysqlGtid) done.gtid());
          } else {
            ((MariadbGtidSet) running).add((MariadbGtid) done.gtid());
          }
        }
        if (tracker.atBoundary()) {
          cut = tracker.lastBoundary();
          atBoundary = running.copy();
          endingAtBoundary = ending;
        }
      }
      if (format == null) {
        return new Expected(true, false, 0, base.before, FileMetadata.Ending.NONE, problem);
      }
      if (problem == null && !tracker.atBoundary()) {
        problem = "incomplete transaction from " + tracker.lastBoundary();
      }
      return new Expected(false, false, cut, atBoundary, endingAtBoundary, problem);
    }
  }

  /**
   * A store filled from a fixture up to a boundary in its last file, closed cleanly; shared, never
   * changed.
   */
  private record Baseline(
      SourceBinlog source,
      Path dir,
      String tail,
      byte[] tailBytes,
      GtidSet before,
      List<Long> checkpoints) {

    static Baseline of(SourceBinlog source, Path dir) throws IOException {
      String tail = source.lastFile();
      long target = tailEnd(source);
      try (BinlogStore store =
          BinlogStore.open(Stores.config(dir, source).maxEventSize(MAX_EVENT_SIZE).build())) {
        String current = null;
        store.startStream();
        for (BinlogEvent e : source.dumpStream(Position.startOf(source.files.get(0)))) {
          if (e.type() == EventType.ROTATE
              && e.header().hasFlag(EventHeader.LOG_EVENT_ARTIFICIAL_F)) {
            current = RotateEvent.parse(e).nextFile();
          }
          store.append(e);
          if (tail.equals(current) && e.header().logPos() == target) {
            break;
          }
        }
      }
      byte[] tailBytes = Files.readAllBytes(dir.resolve(tail));
      assertThat(tailBytes).isEqualTo(source.openPrefix(tail, target));
      NavigableMap<Long, GtidSet> boundaries = source.boundariesOf(tail);
      long fdeEnd = 4 + EventHeader.parse(source.bytes.get(tail), 4).eventSize();
      List<Long> checkpoints = List.copyOf(boundaries.subMap(fdeEnd, true, target, true).keySet());
      return new Baseline(
          source, dir, tail, tailBytes, boundaries.firstEntry().getValue(), checkpoints);
    }
  }

  /** The last transaction boundary of the source's last file below {@link #TAIL_BYTES}. */
  private static long tailEnd(SourceBinlog source) {
    return source.boundariesOf(source.lastFile()).floorKey((long) TAIL_BYTES);
  }

  // ---- bytes ----

  private static byte[] input(int flags, int checkpoint, int back, byte[] payload) {
    byte[] out = new byte[4 + payload.length];
    out[0] = (byte) flags;
    out[1] = (byte) checkpoint;
    out[2] = (byte) back;
    out[3] = (byte) (back >>> 8);
    System.arraycopy(payload, 0, out, 4, payload.length);
    return out;
  }

  private static List<byte[]> events(byte[] file) {
    List<byte[]> out = new ArrayList<>();
    int p = 4;
    while (p < file.length) {
      int size = (int) EventHeader.parse(file, p).eventSize();
      out.add(Arrays.copyOfRange(file, p, p + size));
      p += size;
    }
    return out;
  }

  private static byte[] overwrite(byte[] file, int at, byte[] bytes) {
    byte[] out = Arrays.copyOf(file, Math.max(file.length, at + bytes.length));
    System.arraycopy(bytes, 0, out, at, bytes.length);
    return out;
  }

  private static byte[] concat(List<byte[]> parts) {
    int n = parts.stream().mapToInt(p -> p.length).sum();
    byte[] out = new byte[n];
    int at = 0;
    for (byte[] p : parts) {
      System.arraycopy(p, 0, out, at, p.length);
      at += p.length;
    }
    return out;
  }

  private static void delete(Path dir) {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
        Files.delete(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
