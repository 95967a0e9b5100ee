package org.binlogrelay.server.serving;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import org.binlogrelay.protocol.event.ChecksumAlgorithm;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.server.downstream.DumpRequest;
import org.binlogrelay.server.downstream.sql.SessionVariables;
import org.binlogrelay.storage.BinlogFileName;
import org.binlogrelay.storage.BinlogSource;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.read.BinlogReadException;

/**
 * Everything a dump does differently for MySQL and MariaDB (STYLE.md section 4): where a request
 * starts and what it is refused with, the heartbeat events, the error texts ("source"/"replica"
 * against "master"/"slave"), which replica a new dump replaces, which events a replica does not
 * get, and how the store's GTIDs read in the server's terms ({@link StoreBinlogListing}). One
 * implementation per flavour ({@link MysqlDumpFlavor}, {@link MariadbDumpFlavor}), chosen once from
 * the store's flavour ({@link #of}) when the dump handler or listing is made. Stateless and
 * thread-safe.
 */
interface DumpFlavor {
  /** ER_SOURCE_FATAL_ERROR_READING_BINLOG / ER_MASTER_FATAL_ERROR_READING_BINLOG. */
  int ER_FATAL_READING_BINLOG = 1236;

  /**
   * Both servers' text when the start file is not in the index (and the relay's while its store
   * settles).
   */
  String FILE_NOT_FOUND = "Could not find first log file name in binary log index file";

  /**
   * The plan for a start file the store does not have. Wait (until {@link
   * ServingConfig#startWait()}) while the store is empty, or when the file comes after the store's
   * last one: the relay lags its primary (it was just started, replaced, or bootstrapped from the
   * archive) and the replica, which read that file from the primary or from another relay, is ahead
   * of it. Refuse at once otherwise (an unknown or purged file), as the server does.
   */
  static StartPlan fileNotFound(String requestedFile, BinlogSource store) {
    List<FileMetadata> files = store.files();
    if (files.isEmpty()) {
      return new StartPlan.Retry("the first binlog file", DumpFailure.plain(FILE_NOT_FOUND));
    }
    String name = requestedFile.substring(requestedFile.lastIndexOf('/') + 1);
    String last = files.get(files.size() - 1).name();
    if (BinlogFileName.isValid(name)
        && BinlogFileName.base(name).equals(BinlogFileName.base(last))
        && BinlogFileName.sequence(name) > BinlogFileName.sequence(last)) {
      return new StartPlan.Retry(name + " to be stored", DumpFailure.plain(FILE_NOT_FOUND));
    }
    return new StartPlan.Refuse(DumpFailure.plain(FILE_NOT_FOUND));
  }

  static DumpFlavor of(GtidFlavor flavor) {
    return switch (flavor) {
      case MYSQL -> MysqlDumpFlavor.INSTANCE;
      case MARIADB -> MariadbDumpFlavor.INSTANCE;
    };
  }

  /** The replica's user variables, read as this flavour's server reads them. */
  ReplicaSettings settings(SessionVariables variables);

  /**
   * Where {@code request} starts, or why it cannot (yet). Reads store metadata and at most one
   * file.
   */
  StartPlan plan(
      DumpRequest request, ReplicaSettings settings, BinlogSource store, ServingConfig config)
      throws IOException;

  /**
   * A heartbeat naming {@code position} of {@code file} (event bytes, checksummed if {@code
   * checksum}).
   */
  byte[] heartbeat(
      DumpRequest request, long serverId, String file, long position, boolean checksum);

  /**
   * Whether a replica with these settings may be sent a file whose events carry {@code
   * fileChecksum}.
   */
  boolean acceptsChecksum(ReplicaSettings settings, ChecksumAlgorithm fileChecksum);

  /** The refusal when {@link #acceptsChecksum} is false. */
  String checksumRefusal();

  /** The refusal when a file does not start with a FORMAT_DESCRIPTION. */
  String noFormatDescription();

  /** Whether an event of this type is left out of this replica's stream. */
  boolean drops(int eventType, DumpRequest request, ReplicaSettings settings);

  /** The failure a reader error becomes, in the server's words where it has them. */
  DumpFailure readFailure(BinlogReadException e);

  /** {@code message} with the coordinates suffix this flavour's server appends. */
  String withCoordinates(String message, Coordinates at);

  /**
   * Which earlier dump this one replaces ({@code kill_zombie_dump_threads}): a key shared by dumps
   * of the same replica, empty for clients that replace nothing (server_id 0, mysqlbinlog).
   */
  Optional<String> replicaKey(DumpRequest request, ReplicaSettings settings);

  /** What the replaced dump is told (its connection closes after it). */
  DumpFailure replaced(boolean fileOpen);

  /**
   * The store's executed GTIDs as the server shows them: MySQL {@code @@gtid_executed}, MariaDB
   * {@code @@gtid_binlog_pos}.
   */
  String executedGtids(GtidSet executed);

  /**
   * MariaDB's {@code BINLOG_GTID_POS(file, offset)} ({@link GtidPositionScan}); empty where the
   * server has no such function (MySQL), or if the file is not stored or the offset is not an event
   * start.
   */
  Optional<String> gtidPositionAt(BinlogSource store, String file, long offset) throws IOException;
}
