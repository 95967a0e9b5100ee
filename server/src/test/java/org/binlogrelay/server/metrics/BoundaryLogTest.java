package org.binlogrelay.server.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.Time;
import org.junit.jupiter.api.Test;

/** The boundary ring and the byte distance across files that the replicas' lag is measured with. */
class BoundaryLogTest {
  private static Position p(int file, long offset) {
    return new Position(String.format("binlog.%06d", file), offset);
  }

  @Test
  void findsTheNewestBoundaryAtOrBeforeAPositionWithinTheRing() {
    BoundaryLog log = new BoundaryLog(Time.SYSTEM, 4);
    assertThat(log.newest()).isNull();
    assertThat(log.atOrBefore(p(1, 100))).isNull();
    log.record(p(1, 100), 10, 1000);
    log.record(p(1, 200), 20, 1001);
    log.record(p(2, 150), 30, 1002);
    assertThat(log.atOrBefore(p(1, 99))).isNull();
    assertThat(log.atOrBefore(p(1, 100)).writtenNanos()).isEqualTo(10);
    assertThat(log.atOrBefore(p(1, 199)).writtenNanos()).isEqualTo(10);
    assertThat(log.atOrBefore(p(2, 4)).eventTimestamp()).isEqualTo(1001);
    assertThat(log.atOrBefore(p(9, 4)).end()).isEqualTo(p(2, 150));
    log.record(p(2, 300), 40, 1003);
    log.record(p(2, 400), 50, 1004);
    assertThat(log.oldest().end()).as("the ring holds 4").isEqualTo(p(1, 200));
    assertThat(log.atOrBefore(p(1, 150))).as("older than the ring").isNull();
    assertThat(log.newest().eventTimestamp()).isEqualTo(1004);
  }

  @Test
  void findsTheOldestBoundaryAfterAPositionWithinTheRing() {
    BoundaryLog log = new BoundaryLog(Time.SYSTEM, 4);
    assertThat(log.firstAfter(p(1, 1))).isNull();
    log.record(p(1, 100), 10, 1000);
    log.record(p(1, 200), 20, 1001);
    log.record(p(2, 150), 30, 1002);
    assertThat(log.firstAfter(p(1, 100)).writtenNanos()).isEqualTo(20);
    assertThat(log.firstAfter(p(1, 150)).writtenNanos()).isEqualTo(20);
    assertThat(log.firstAfter(p(1, 200)).end()).isEqualTo(p(2, 150));
    assertThat(log.firstAfter(p(2, 150))).as("nothing after the newest").isNull();
    assertThat(log.firstAfter(p(1, 99))).as("before the ring: unknown").isNull();
    log.record(p(2, 300), 40, 1003);
    log.record(p(2, 400), 50, 1004);
    assertThat(log.firstAfter(p(1, 150))).as("older than the ring").isNull();
    assertThat(log.firstAfter(p(1, 200)).writtenNanos()).isEqualTo(30);
  }

  @Test
  void aRestartBehindTheRecordedBoundariesForgetsThem() {
    BoundaryLog log = new BoundaryLog(Time.SYSTEM, 8);
    log.record(p(1, 100), 1, 1);
    log.record(p(1, 200), 2, 2);
    log.record(p(1, 300), 3, 3);
    log.record(p(1, 200), 4, 4);
    assertThat(log.newest().writtenNanos()).isEqualTo(4);
    assertThat(log.atOrBefore(p(1, 250)).writtenNanos()).isEqualTo(4);
    assertThat(log.atOrBefore(p(1, 150)).writtenNanos()).isEqualTo(1);
  }

  @Test
  void aRestartAfterTheRingWrappedKeepsItSorted() {
    BoundaryLog log = new BoundaryLog(Time.SYSTEM, 4);
    for (int i = 1; i <= 6; i++) {
      log.record(p(1, i * 100L), i, i);
    }
    // the ring holds 300..600; a new stream restarts behind 500: 500 and 600 are forgotten, 300 and
    // 400 stay
    log.record(p(1, 450), 7, 7);
    assertThat(log.oldest().end()).isEqualTo(p(1, 300));
    assertThat(log.newest().end()).isEqualTo(p(1, 450));
    assertThat(log.atOrBefore(p(1, 350)).end()).isEqualTo(p(1, 300));
    assertThat(log.atOrBefore(p(1, 420)).end()).isEqualTo(p(1, 400));
    assertThat(log.atOrBefore(p(1, 900)).end()).isEqualTo(p(1, 450));
    assertThat(log.atOrBefore(p(1, 250))).as("older than the ring").isNull();
    log.record(p(1, 500), 8, 8);
    log.record(p(1, 600), 9, 9);
    assertThat(log.oldest().end()).as("the ring holds 4 again").isEqualTo(p(1, 400));
    assertThat(log.atOrBefore(p(1, 550)).end()).isEqualTo(p(1, 500));
    // a restart behind everything the ring holds forgets all of it
    log.record(p(1, 50), 10, 10);
    assertThat(log.oldest().end()).isEqualTo(p(1, 50));
    assertThat(log.atOrBefore(p(1, 400)).end()).isEqualTo(p(1, 50));
  }

  @Test
  void bytesBetweenCountsEventBytesAcrossFiles() {
    List<FileMetadata> files =
        List.of(file(1, 1000, true), file(2, 500, true), file(3, 300, false));
    assertThat(ReplicaLag.bytesBetween(files, p(3, 100), p(3, 300))).isEqualTo(200);
    assertThat(ReplicaLag.bytesBetween(files, p(3, 300), p(3, 300))).isZero();
    assertThat(ReplicaLag.bytesBetween(files, p(3, 300), p(3, 100))).isZero();
    assertThat(ReplicaLag.bytesBetween(files, p(1, 900), p(3, 300))).isEqualTo(100 + 496 + 296);
    assertThat(ReplicaLag.bytesBetween(files, p(2, 500), p(3, 300))).isEqualTo(296);
    assertThat(ReplicaLag.bytesBetween(files, p(1, 4), p(2, 4))).isEqualTo(996);
  }

  private static FileMetadata file(int n, long size, boolean closed) {
    GtidSet empty = MysqlGtidSet.empty();
    return new FileMetadata(
        String.format("binlog.%06d", n),
        GtidFlavor.MYSQL,
        closed,
        size,
        0,
        empty,
        empty,
        null,
        null,
        0,
        0,
        closed ? FileMetadata.Ending.ROTATE : FileMetadata.Ending.NONE,
        closed ? String.format("binlog.%06d", n + 1) : null);
  }
}
