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

  @Test
  void withAnArchiveUnarchivedFilesStayEvenWhenForced() {
    List<FileMetadata> files = files(6);
    Position durable = Position.startOf("binlog.000007");
    ArchiveRules rules = ArchiveRules.of(new ArchivedFiles("binlog.000001", "binlog.000002"));
    for (boolean force : new boolean[] {false, true}) {
      PurgePlan plan =
          PurgePlan.decide(files, null, durable, 5, Optional.empty(), force, rules, false);
      assertThat(plan.firstKept()).isEqualTo(2);
      assertThat(plan.keptUnarchived())
          .containsExactly("binlog.000003", "binlog.000004", "binlog.000005");
      assertThat(plan.keptUnsafe()).isEmpty();
      assertThat(plan.removedUnarchived()).isEmpty();
      assertThat(plan.forced()).isZero();
    }
    // Files go as a prefix: an archived file after an unarchived one stays too.
    PurgePlan hole =
        PurgePlan.decide(
            files,
            null,
            durable,
            5,
            Optional.empty(),
            false,
            ArchiveRules.of(new ArchivedFiles("binlog.000001", "binlog.000003")),
            false);
    assertThat(hole.firstKept()).isEqualTo(1);
    assertThat(hole.keptUnarchived())
        .containsExactly("binlog.000002", "binlog.000003", "binlog.000004", "binlog.000005");
    // The unsafe files are reported as such, not as unarchived.
    PurgePlan unsafe =
        PurgePlan.decide(files, "binlog.000004", durable, 5, Optional.empty(), false, rules, false);
    assertThat(unsafe.keptUnsafe()).containsExactly("binlog.000004", "binlog.000005");
    assertThat(unsafe.keptUnarchived()).containsExactly("binlog.000003");
  }

  @Test
  void withAnArchiveReadersHoldOnlyFilesNotArchived() {
    List<FileMetadata> files = files(6);
    Position durable = Position.startOf("binlog.000007");
    Optional<Position> reader = Optional.of(new Position("binlog.000002", 400));
    ArchivedFiles gate =
        new ArchivedFiles("binlog.000001", "binlog.000002", "binlog.000003", "binlog.000004");
    PurgePlan released =
        PurgePlan.decide(files, null, durable, 5, reader, false, ArchiveRules.of(gate), false);
    assertThat(released.firstKept()).isEqualTo(4);
    assertThat(released.keptForReaders()).isEmpty();
    assertThat(released.keptUnarchived()).containsExactly("binlog.000005");
    assertThat(released.forced()).as("an archived file is fetched back, not forced").isZero();

    PurgePlan pinned =
        PurgePlan.decide(
            files,
            null,
            durable,
            5,
            reader,
            false,
            ArchiveRules.of(gate).withReadersPinOnlyUnarchived(false),
            false);
    assertThat(pinned.firstKept()).isEqualTo(1);
    assertThat(pinned.keptForReaders())
        .containsExactly("binlog.000002", "binlog.000003", "binlog.000004");
    assertThat(pinned.keptUnarchived()).containsExactly("binlog.000005");
  }

  @Test
  void unarchivedFilesGoOnlyWhenAllowedAndAreReported() {
    List<FileMetadata> files = files(6);
    Position durable = Position.startOf("binlog.000007");
    ArchiveRules rules = ArchiveRules.of(new ArchivedFiles("binlog.000001"));
    PurgePlan all = PurgePlan.decide(files, null, durable, 5, Optional.empty(), false, rules, true);
    assertThat(all.firstKept()).isEqualTo(5);
    assertThat(all.keptUnarchived()).isEmpty();
    assertThat(all.removedUnarchived())
        .containsExactly("binlog.000002", "binlog.000003", "binlog.000004", "binlog.000005");

    // A reader still holds the unarchived files it needs, unless forced too.
    Optional<Position> reader = Optional.of(Position.startOf("binlog.000003"));
    PurgePlan held = PurgePlan.decide(files, null, durable, 5, reader, false, rules, true);
    assertThat(held.firstKept()).isEqualTo(2);
    assertThat(held.keptForReaders())
        .containsExactly("binlog.000003", "binlog.000004", "binlog.000005");
    assertThat(held.removedUnarchived()).containsExactly("binlog.000002");
    PurgePlan forced = PurgePlan.decide(files, null, durable, 5, reader, true, rules, true);
    assertThat(forced.firstKept()).isEqualTo(5);
    assertThat(forced.forced()).isEqualTo(3);
    assertThat(forced.removedUnarchived()).hasSize(4);
  }

  @Test
  void withoutAnArchiveTheGateIsNeverAskedAndNothingChanges() {
    List<FileMetadata> files = files(6);
    Position durable = Position.startOf("binlog.000007");
    List<Optional<Position>> readers =
        List.of(
            Optional.empty(),
            Optional.of(new Position("binlog.000003", 400)),
            Optional.of(Position.startOf("binlog.000001")));
    for (ArchiveRules rules :
        List.of(
            ArchiveRules.none(),
            ArchiveRules.of(ArchivedFiles.disabledAndNeverAsked()),
            new ArchiveRules(ArchivedFiles.disabledAndNeverAsked(), true))) {
      for (Optional<Position> reader : readers) {
        for (boolean force : new boolean[] {false, true}) {
          for (boolean purgeUnarchived : new boolean[] {false, true}) {
            for (String current : new String[] {null, "binlog.000004"}) {
              assertThat(
                      PurgePlan.decide(
                          files, current, durable, 5, reader, force, rules, purgeUnarchived))
                  .isEqualTo(PurgePlan.decide(files, current, durable, 5, reader, force));
            }
          }
        }
      }
    }
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
