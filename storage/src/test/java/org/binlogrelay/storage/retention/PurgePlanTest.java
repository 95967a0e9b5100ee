package org.binlogrelay.storage.retention;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.FileMetadata.Ending;
import org.binlogrelay.storage.Position;
import org.junit.jupiter.api.Test;

/**
 * The purge rules on hand-made store states, including ones a live store only passes through
 * briefly.
 */
class PurgePlanTest {
  private static final long SIZE = 1000;

  @Test
  void stopsAtTheFirstFileNotClosed() {
    List<FileMetadata> files = files(5);
    files.set(2, open(files.get(2)));
    PurgePlan plan =
        PurgePlan.decide(
            files, "binlog.000005", Position.startOf("binlog.000005"), 4, Optional.empty(), false);
    assertThat(plan.firstKept()).isEqualTo(2);
    assertThat(plan.keptUnsafe()).containsExactly("binlog.000003", "binlog.000004");
  }

  @Test
  void stopsAtTheFirstFileNotDurable() {
    List<FileMetadata> files = files(5);
    PurgePlan plan =
        PurgePlan.decide(
            files,
            "binlog.000005",
            new Position("binlog.000002", SIZE - 1),
            4,
            Optional.empty(),
            false);
    assertThat(plan.firstKept()).isEqualTo(1);
    assertThat(
            PurgePlan.decide(
                    files,
                    "binlog.000005",
                    new Position("binlog.000002", SIZE),
                    4,
                    Optional.empty(),
                    false)
                .firstKept())
        .isEqualTo(2);
    assertThat(
            PurgePlan.decide(files, "binlog.000005", null, 4, Optional.empty(), false).firstKept())
        .isZero();
  }

  @Test
  void neverTheCurrentNorTheLastFile() {
    List<FileMetadata> files = files(3);
    PurgePlan current =
        PurgePlan.decide(
            files, "binlog.000002", Position.startOf("binlog.000004"), 3, Optional.empty(), false);
    assertThat(current.firstKept()).isEqualTo(1);
    PurgePlan last =
        PurgePlan.decide(
            files, null, Position.startOf("binlog.000004"), 3, Optional.empty(), false);
    assertThat(last.firstKept()).isEqualTo(2);
    assertThat(last.keptUnsafe()).containsExactly("binlog.000003");
  }

  @Test
  void readersHoldTheirFileAndLaterOnesUnlessForced() {
    List<FileMetadata> files = files(6);
    Position durable = Position.startOf("binlog.000007");
    Optional<Position> reader = Optional.of(new Position("binlog.000003", 400));
    PurgePlan held = PurgePlan.decide(files, null, durable, 5, reader, false);
    assertThat(held.firstKept()).isEqualTo(2);
    assertThat(held.keptForReaders())
        .containsExactly("binlog.000003", "binlog.000004", "binlog.000005");
    assertThat(held.forced()).isZero();
    PurgePlan forced = PurgePlan.decide(files, null, durable, 5, reader, true);
    assertThat(forced.firstKept()).isEqualTo(5);
    assertThat(forced.forced()).isEqualTo(3);
    // A reader in a file already removed (it kept reading it) holds nothing before the oldest
    // stored file.
    PurgePlan past =
        PurgePlan.decide(
            files.subList(2, 6),
            null,
            durable,
            2,
            Optional.of(Position.startOf("binlog.000001")),
            false);
    assertThat(past.firstKept()).isZero();
    assertThat(past.keptForReaders()).containsExactly("binlog.000003", "binlog.000004");
  }

  private static List<FileMetadata> files(int n) {
    List<FileMetadata> out = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      String name = String.format("binlog.%06d", i);
      String next = String.format("binlog.%06d", i + 1);
      out.add(
          new FileMetadata(
              name,
              GtidFlavor.MYSQL,
              true,
              SIZE,
              2,
              MysqlGtidSet.empty(),
              MysqlGtidSet.empty(),
              null,
              null,
              0,
              0,
              Ending.ROTATE,
              next));
    }
    return out;
  }

  private static FileMetadata open(FileMetadata f) {
    return new FileMetadata(
        f.name(),
        f.flavor(),
        false,
        f.size(),
        f.transactions(),
        f.gtidsAtStart(),
        f.gtidsAtEnd(),
        null,
        null,
        0,
        0,
        Ending.NONE,
        null);
  }
}
