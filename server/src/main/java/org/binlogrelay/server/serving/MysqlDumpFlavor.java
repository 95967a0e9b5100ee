package org.binlogrelay.server.serving;

import java.io.IOException;
import java.util.Optional;
import org.binlogrelay.protocol.event.ChecksumAlgorithm;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.server.downstream.Command;
import org.binlogrelay.server.downstream.DumpRequest;
import org.binlogrelay.server.downstream.sql.SessionVariables;
import org.binlogrelay.storage.BinlogFileName;
import org.binlogrelay.storage.BinlogSource;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.lookup.MysqlStart;
import org.binlogrelay.storage.lookup.MysqlStartLookup;
import org.binlogrelay.storage.lookup.PositionCheck;
import org.binlogrelay.storage.lookup.PositionLookup;
import org.binlogrelay.storage.read.BinlogReadException;
import org.binlogrelay.storage.read.MysqlGtidFilter;

/**
 * MySQL 8.4 / 9.x dumps, as {@code Binlog_sender} ({@code sql/rpl_binlog_sender.cc}) serves them:
 *
 * <ul>
 *   <li>COM_BINLOG_DUMP_GTID without a file: {@link MysqlStartLookup} ({@code check_start_file}'s
 *       order: more GTIDs than the source, purged GTIDs, first file not in the set). Every file's
 *       FORMAT_DESCRIPTION gets {@code created} = 0 when the start file's first transaction is
 *       skipped; a run of skipped transactions is followed by a HEARTBEAT naming its end;
 *   <li>COM_BINLOG_DUMP (and COM_BINLOG_DUMP_GTID with a file): the position is checked, and a
 *       start past offset 4 clears the first FORMAT_DESCRIPTION's log_pos and {@code created};
 *   <li>heartbeats are HEARTBEAT_V2 for replicas that set USE_HEARTBEAT_EVENT_V2, else HEARTBEAT;
 *   <li>a new dump with the same {@code @replica_uuid} (or, without one, the same server_id)
 *       replaces the old one.
 * </ul>
 *
 * Texts are MySQL 9.7's. Stateless.
 */
final class MysqlDumpFlavor implements DumpFlavor {
  static final MysqlDumpFlavor INSTANCE = new MysqlDumpFlavor();

  static final String BELOW_FIRST_EVENT =
      "Client requested source to start replication from position < 4";
  static final String PAST_FILE_END =
      "Client requested source to start replication from position > file size";
  static final String PURGED =
      "Cannot replicate because the source purged required binary logs. Replicate the"
          + " missing transactions from elsewhere, or provision a new replica from backup. Consider increasing the"
          + " source's binary log expiration period. The GTID set sent by the replica is '%s', and the missing"
          + " transactions are '%s'";
  static final String DIVERGED =
      "Replica has more GTIDs than the source has, using the source's SERVER_UUID. This"
          + " may indicate that the the last binary log file was truncated or lost, e.g., after a power failure when"
          + " sync_binlog != 1. The source may have rolled back transactions that were already replicated to the"
          + " replica. Replicate any transactions that source has rolled back from replica to source, and/or commit"
          + " empty transactions on source to account for transactions that have been committed on source but are not"
          + " included in GTID_EXECUTED.";
  static final String CHECKSUM_REFUSED =
      "Replica can not handle replication events with the checksum that source"
          + " is configured to log";
  static final String REPLACED =
      "A replica with the same server_uuid/server_id as this replica has connected to"
          + " the source";

  private MysqlDumpFlavor() {}

  @Override
  public ReplicaSettings settings(SessionVariables variables) {
    return ReplicaSettings.mysql(variables);
  }

  @Override
  public StartPlan plan(
      DumpRequest request, ReplicaSettings settings, BinlogSource store, ServingConfig config)
      throws IOException {
    MysqlGtidSet gtids =
        request.startGtids() == null ? MysqlGtidSet.empty() : (MysqlGtidSet) request.startGtids();
    if (request.command() == Command.COM_BINLOG_DUMP_GTID && request.binlogFile().isEmpty()) {
      return gtidPlan(request, gtids, store, config);
    }
    boolean gtidProtocol = request.command() == Command.COM_BINLOG_DUMP_GTID;
    PositionCheck check = new PositionLookup(store).check(request.binlogFile(), request.position());
    if (check instanceof PositionCheck.Valid valid) {
      long start = valid.position().offset();
      StartPlan.FormatDescriptionRule rule =
          gtidProtocol
              ? first -> FormatDescriptionPatch.NONE
              : first ->
                  first && start > BinlogFileName.FIRST_EVENT_OFFSET
                      ? FormatDescriptionPatch.CLEAR_LOG_POS | FormatDescriptionPatch.CLEAR_CREATED
                      : FormatDescriptionPatch.NONE;
      return new StartPlan.Stream(
          valid.position(),
          request.position(),
          gtidProtocol && !gtids.isEmpty() ? new MysqlGtidFilter(gtids) : null,
          rule,
          gtidProtocol,
          PositionWatch.NONE,
          null);
    }
    PositionCheck.Invalid invalid = (PositionCheck.Invalid) check;
    return switch (invalid.problem()) {
      case FILE_NOT_FOUND -> DumpFlavor.fileNotFound(request.binlogFile(), store);
      case BELOW_FIRST_EVENT -> new StartPlan.Refuse(DumpFailure.plain(BELOW_FIRST_EVENT));
      case PAST_FILE_END -> new StartPlan.Refuse(DumpFailure.plain(PAST_FILE_END));
      case NOT_YET_READABLE ->
          new StartPlan.Retry(
              invalid.file() + ":" + invalid.offset() + " to be stored",
              DumpFailure.plain(PAST_FILE_END));
      case INSIDE_EVENT -> insideEvent(request, invalid, store);
    };
  }

  private StartPlan gtidPlan(
      DumpRequest request, MysqlGtidSet gtids, BinlogSource store, ServingConfig config)
      throws IOException {
    MysqlStart start = new MysqlStartLookup(store).find(gtids, config.checkedSources().get());
    if (start instanceof MysqlStart.Found found) {
      if (request.position() < BinlogFileName.FIRST_EVENT_OFFSET) {
        return new StartPlan.Refuse(DumpFailure.plain(BELOW_FIRST_EVENT));
      }
      int changes =
          found.firstTransactionSkipped()
              ? FormatDescriptionPatch.CLEAR_CREATED
              : FormatDescriptionPatch.NONE;
      return new StartPlan.Stream(
          found.start(),
          BinlogFileName.FIRST_EVENT_OFFSET,
          found.filter(),
          first -> changes,
          true,
          PositionWatch.NONE,
          null);
    }
    if (start instanceof MysqlStart.Purged purged) {
      return new StartPlan.Refuse(
          DumpFailure.plain(String.format(PURGED, purged.replica(), purged.missing())));
    }
    if (start instanceof MysqlStart.Diverged diverged) {
      return new StartPlan.Retry(
          "the store to execute " + diverged.extra().toString().replace("\n", ""),
          DumpFailure.plain(DIVERGED));
    }
    return new StartPlan.Retry("the first binlog file", DumpFailure.plain(FILE_NOT_FOUND));
  }

  /**
   * The ROTATE and FORMAT_DESCRIPTION go out, then the error MySQL's reader gives for the bytes
   * found there.
   */
  private StartPlan insideEvent(
      DumpRequest request, PositionCheck.Invalid invalid, BinlogSource store) throws IOException {
    InsideEventProbe.Result probe = InsideEventProbe.probe(store, invalid.file(), invalid.offset());
    String text =
        switch (probe.outcome()) {
          case BOGUS -> "bogus data in log event";
          case TOO_LARGE ->
              "log event entry exceeded max_allowed_packet; Increase max_allowed_packet on source";
          case TRUNCATED ->
              "binlog truncated in the middle of event; consider out of disk space on source";
        };
    long formatEnd = formatDescriptionEnd(store, invalid.file());
    String message =
        withCoordinates(
            text,
            new Coordinates(
                request.binlogFile(),
                request.position(),
                invalid.file(),
                BinlogFileName.FIRST_EVENT_OFFSET,
                formatEnd,
                invalid.file(),
                probe.bytePosition()));
    long start = invalid.offset();
    return new StartPlan.Stream(
        new Position(invalid.file(), invalid.eventStart()),
        request.position(),
        null,
        first ->
            first && start > BinlogFileName.FIRST_EVENT_OFFSET
                ? FormatDescriptionPatch.CLEAR_LOG_POS | FormatDescriptionPatch.CLEAR_CREATED
                : FormatDescriptionPatch.NONE,
        false,
        PositionWatch.NONE,
        DumpFailure.plain(message));
  }

  static long formatDescriptionEnd(BinlogSource store, String file) throws IOException {
    return BinlogFileName.FIRST_EVENT_OFFSET + FormatDescriptionReader.read(store, file).length;
  }

  @Override
  public byte[] heartbeat(
      DumpRequest request, long serverId, String file, long position, boolean checksum) {
    return request.heartbeatV2()
        ? ArtificialEvents.heartbeatV2(serverId, file, position, checksum)
        : ArtificialEvents.heartbeat(serverId, file, position, checksum);
  }

  @Override
  public boolean acceptsChecksum(ReplicaSettings settings, ChecksumAlgorithm fileChecksum) {
    return settings.checksum() != ChecksumAlgorithm.UNDEFINED || !fileChecksum.isChecksummed();
  }

  @Override
  public String checksumRefusal() {
    return CHECKSUM_REFUSED;
  }

  @Override
  public String noFormatDescription() {
    return "Could not find format_description_event in binlog file";
  }

  @Override
  public boolean drops(int eventType, DumpRequest request, ReplicaSettings settings) {
    return false;
  }

  @Override
  public DumpFailure readFailure(BinlogReadException e) {
    return DumpFailure.whileReading(
        switch (e.reason()) {
          case CORRUPT -> "bogus data in log event";
          case TRUNCATED ->
              "binlog truncated in the middle of event; consider out of disk space on source";
          case REMOVED, REPLACED -> "could not find next log";
        });
  }

  @Override
  public String withCoordinates(String message, Coordinates at) {
    return message
        + "; the first event '"
        + at.startFile()
        + "' at "
        + at.startPosition()
        + ", the last event read from '"
        + (at.lastFile() == null ? "(null)" : "./" + at.lastFile())
        + "' at "
        + at.lastEventEnd()
        + ", the last byte read from './"
        + at.currentFile()
        + "' at "
        + at.bytePosition()
        + ".";
  }

  @Override
  public Optional<String> replicaKey(DumpRequest request, ReplicaSettings settings) {
    if (!settings.replicaUuid().isEmpty()) {
      return Optional.of("replica_uuid " + settings.replicaUuid());
    }
    return request.serverId() == 0
        ? Optional.empty()
        : Optional.of("server_id " + request.serverId());
  }

  @Override
  public DumpFailure replaced(boolean fileOpen) {
    return new DumpFailure(ER_FATAL_READING_BINLOG, REPLACED, fileOpen);
  }

  @Override
  public String executedGtids(GtidSet executed) {
    return executed.toString();
  }

  /** MySQL has no {@code BINLOG_GTID_POS()}. */
  @Override
  public Optional<String> gtidPositionAt(BinlogSource store, String file, long offset) {
    return Optional.empty();
  }
}
