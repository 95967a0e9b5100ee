package org.binlogrelay.server.admin;

import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.protocol.gtid.MariadbGtidSet;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.storage.BinlogFileName;
import org.binlogrelay.storage.BinlogSource;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.lookup.MariadbStart;
import org.binlogrelay.storage.lookup.MariadbStartLookup;
import org.binlogrelay.storage.lookup.MysqlStart;
import org.binlogrelay.storage.lookup.MysqlStartLookup;
import org.binlogrelay.storage.pitr.StopPoint;
import org.binlogrelay.storage.pitr.StopPointException;
import org.binlogrelay.storage.pitr.StopPointFinder;

/**
 * {@code POST /api/v1/pitr/plan}: where a point-in-time recovery stops (by time, right before one
 * GTID, or after a GTID set: {@link StopPointFinder}), where it starts for a restored backup's GTID
 * set (the lookups replicas connect with: MySQL the newest file whose start set the backup
 * contains, MariaDB the file and offset of the first event group the backup lacks) and the files to
 * apply, each with the bytes to apply. Works on {@link RelayControl#binlogs()}, so archived files
 * count once the relay reads across tiers.
 *
 * <p>Stateless; thread-safe as the source it reads.
 */
final class PitrPlanner {
  private PitrPlanner() {}

  /** The request: exactly one of the stop criteria, and optionally the backup's set. */
  record Request(
      String untilTime, String stopBeforeGtid, String stopAfterGtids, String backupGtids) {}

  /** The answer of {@code POST /api/v1/pitr/plan}. */
  record PlanJson(
      String flavor,
      StopJson stop,
      StartJson start,
      List<FileJson> files,
      long bytesToApply,
      long transactionsInFiles) {}

  /**
   * The stop: apply up to {@code position} of {@code file}; a server that did has executed {@code
   * gtidExecuted}.
   */
  record StopJson(
      String file,
      long position,
      String lastGtid,
      String gtidExecuted,
      String commitTime,
      String reason) {}

  /**
   * The start: the first file to apply and the offset in it ({@code position}: 4 for MySQL, whose
   * server skips the transactions the backup has by GTID; for MariaDB the first event group the
   * backup lacks, for {@code mariadb-binlog --start-position}). {@code backupGtids} is {@code null}
   * when none was given (the plan then starts at the oldest file).
   */
  record StartJson(String file, long position, String backupGtids, String reason) {}

  /**
   * One file to apply: its size, and how many of its bytes the plan applies ({@code from} to {@code
   * to}); {@code transactions} is the whole file's count.
   */
  record FileJson(String name, long size, long from, long to, long transactions) {}

  /**
   * Plans a recovery over {@code source}.
   *
   * @throws ApiException 400 for bad input, 409 if the point or the start is not in the binlog
   */
  static PlanJson plan(BinlogSource source, Request r) throws ApiException, IOException {
    Objects.requireNonNull(source, "source");
    int given =
        (r.untilTime() != null ? 1 : 0)
            + (r.stopBeforeGtid() != null ? 1 : 0)
            + (r.stopAfterGtids() != null ? 1 : 0);
    if (given != 1) {
      throw ApiException.badRequest(
          "give exactly one of \"untilTime\" (an ISO-8601 UTC time such as"
              + " 2026-11-20T10:15:00Z), \"stopBeforeGtid\" (the GTID of the transaction to"
              + " undo, e.g. a DROP TABLE) and \"stopAfterGtids\" (a GTID set)");
    }
    GtidFlavor flavor = source.flavor();
    GtidSet backup =
        r.backupGtids() == null ? null : parseSet(flavor, "backupGtids", r.backupGtids());
    StopPointFinder finder = new StopPointFinder(source);
    StopPoint stop;
    try {
      if (r.untilTime() != null) {
        stop = finder.beforeTime(parseTime(r.untilTime()));
      } else if (r.stopBeforeGtid() != null) {
        stop = beforeGtid(finder, r.stopBeforeGtid().strip());
      } else {
        stop = finder.afterGtids(parseSet(flavor, "stopAfterGtids", r.stopAfterGtids()));
      }
    } catch (StopPointException e) {
      throw ApiException.conflict(e.getMessage());
    }
    Start start = start(source, backup, stop);
    List<FileMetadata> all = source.files();
    int first = indexOf(all, start.file());
    int last = indexOf(all, stop.end().file());
    if (first < 0 || last < 0) {
      throw ApiException.conflict(
          "the relay's files changed while planning (a purge?): plan again");
    }
    List<FileJson> files = new ArrayList<>();
    long bytes = 0;
    long transactions = 0;
    for (int i = first; i <= last; i++) {
      FileMetadata f = all.get(i);
      long size = source.readableLength(f.name());
      long from = i == first ? start.offset() : BinlogFileName.FIRST_EVENT_OFFSET;
      long to = i == last ? stop.end().offset() : size;
      files.add(new FileJson(f.name(), size, from, to, f.transactions()));
      bytes += Math.max(0, to - from);
      transactions += f.transactions();
    }
    return new PlanJson(
        flavor == GtidFlavor.MYSQL ? "mysql" : "mariadb",
        new StopJson(
            stop.end().file(),
            stop.end().offset(),
            stop.gtid(),
            oneLine(stop.executedAtStop()),
            stop.commitTime().toString(),
            stop.reason()),
        new StartJson(
            start.file(), start.offset(), backup == null ? null : oneLine(backup), start.reason()),
        files,
        bytes,
        transactions);
  }

  private static StopPoint beforeGtid(StopPointFinder finder, String gtid)
      throws ApiException, IOException, StopPointException {
    try {
      return finder.beforeGtid(gtid);
    } catch (IllegalArgumentException e) {
      throw ApiException.badRequest(
          "\"stopBeforeGtid\": '" + gtid + "' is not a GTID of this relay: " + e.getMessage());
    }
  }

  private record Start(String file, long offset, String reason) {}

  /** Where applying starts for {@code backup} (the oldest file without one). */
  private static Start start(BinlogSource source, GtidSet backup, StopPoint stop)
      throws ApiException, IOException {
    List<FileMetadata> files = source.files();
    if (files.isEmpty()) {
      throw ApiException.conflict("the relay stores no binlog file yet");
    }
    Start start;
    if (backup == null) {
      start =
          new Start(
              files.get(0).name(),
              BinlogFileName.FIRST_EVENT_OFFSET,
              "no backup set given: from the oldest stored file");
    } else if (backup instanceof MysqlGtidSet mysql) {
      start = mysqlStart(source, mysql, stop);
    } else {
      start = mariadbStart(source, (MariadbGtidSet) backup);
    }
    int startIndex = indexOf(files, start.file());
    int stopIndex = indexOf(files, stop.end().file());
    if (startIndex > stopIndex
        || (startIndex == stopIndex && start.offset() > stop.end().offset())) {
      throw ApiException.conflict(
          "the backup is newer than the stop point: it starts at "
              + start.file()
              + ":"
              + start.offset()
              + ", after the stop at "
              + stop.end()
              + " ("
              + stop.reason()
              + "); restore an older backup");
    }
    return start;
  }

  private static Start mysqlStart(BinlogSource source, MysqlGtidSet backup, StopPoint stop)
      throws ApiException, IOException {
    MysqlGtidSet extra = backup.subtract((MysqlGtidSet) stop.executedAtStop());
    if (!extra.isEmpty()) {
      throw ApiException.conflict(
          "the backup has transactions after the stop point ('"
              + oneLine(extra)
              + "' are not executed at the stop "
              + stop.end()
              + "): restore an older backup, or stop later");
    }
    MysqlStart found = new MysqlStartLookup(source).find(backup, Set.of());
    if (found instanceof MysqlStart.Found f) {
      return new Start(
          f.start().file(),
          BinlogFileName.FIRST_EVENT_OFFSET,
          "the newest file whose start set the backup has; the server skips the transactions"
              + " the backup has (first one it lacks at "
              + f.firstToSend()
              + ")");
    }
    if (found instanceof MysqlStart.Purged p) {
      throw ApiException.conflict(
          "the relay no longer has binlog the backup needs: it lacks '"
              + oneLine(p.missing())
              + "', which were purged from the relay (and its archive); restore a newer backup");
    }
    throw ApiException.conflict("the relay stores no binlog file yet");
  }

  private static Start mariadbStart(BinlogSource source, MariadbGtidSet backup)
      throws ApiException, IOException {
    MariadbStart found = new MariadbStartLookup(source).find(backup, false, false);
    if (found instanceof MariadbStart.Found f) {
      return new Start(
          f.firstToSend().file(),
          f.firstToSend().offset(),
          "the first event group the backup lacks (mariadb-binlog --start-position)");
    }
    if (found instanceof MariadbStart.Refused refused) {
      throw ApiException.conflict("no start for the backup's position: " + refused.message());
    }
    if (found instanceof MariadbStart.Purged) {
      throw ApiException.conflict(
          "the relay no longer has binlog the backup needs (its position '"
              + oneLine(backup)
              + "' is before the oldest stored file); restore a newer backup");
    }
    throw ApiException.conflict("the relay stores no binlog file yet");
  }

  private static int indexOf(List<FileMetadata> files, String name) {
    for (int i = 0; i < files.size(); i++) {
      if (files.get(i).name().equals(name)) {
        return i;
      }
    }
    return -1;
  }

  private static Instant parseTime(String text) throws ApiException {
    try {
      return Instant.parse(text.strip());
    } catch (DateTimeParseException e) {
      throw ApiException.badRequest(
          "\"untilTime\": '" + text + "' is not an ISO-8601 UTC time such as 2026-11-20T10:15:00Z");
    }
  }

  private static GtidSet parseSet(GtidFlavor flavor, String field, String text)
      throws ApiException {
    try {
      if (flavor == GtidFlavor.MYSQL) {
        return MysqlGtidSet.parse(text.strip());
      }
      // A restored backup's gtid_slave_pos is a position: one GTID per domain.
      return field.equals("backupGtids")
          ? MariadbGtidSet.parsePosition(text.strip())
          : MariadbGtidSet.parse(text.strip());
    } catch (IllegalArgumentException e) {
      throw ApiException.badRequest(
          "\""
              + field
              + "\": '"
              + text
              + "' is not a "
              + (flavor == GtidFlavor.MYSQL ? "MySQL" : "MariaDB")
              + " GTID set: "
              + e.getMessage());
    }
  }

  private static String oneLine(Object o) {
    return o.toString().replace("\n", "");
  }
}
