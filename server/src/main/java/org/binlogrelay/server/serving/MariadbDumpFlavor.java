package org.binlogrelay.server.serving;

import java.io.IOException;
import java.util.Optional;
import org.binlogrelay.protocol.event.ChecksumAlgorithm;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.protocol.gtid.MariadbGtidSet;
import org.binlogrelay.server.downstream.DumpRequest;
import org.binlogrelay.server.downstream.sql.SessionVariables;
import org.binlogrelay.storage.BinlogFileName;
import org.binlogrelay.storage.BinlogSource;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.lookup.MariadbStart;
import org.binlogrelay.storage.lookup.MariadbStartLookup;
import org.binlogrelay.storage.lookup.PositionCheck;
import org.binlogrelay.storage.lookup.PositionLookup;
import org.binlogrelay.storage.read.BinlogReadException;
import org.binlogrelay.storage.read.MariadbStartException;

/**
 * MariaDB 10.11 dumps, as {@code mysql_binlog_send} ({@code sql/sql_repl.cc}) serves them:
 *
 * <ul>
 *   <li>a GTID start is a COM_BINLOG_DUMP after {@code SET @slave_connect_state}: {@link
 *       MariadbStartLookup} ({@code check_slave_start_position}, {@code gtid_find_binlog_file}),
 *       per-domain skipping with the replica's strict mode, fake GTID_LISTs where positions are
 *       reached ({@link MariadbPositionWatch}), and {@code created} = 0 while a domain waits; no
 *       heartbeat for skipped groups. A position ahead of the store ("not in the master's binlog":
 *       a relay lagging its primary) is looked up again until {@link ServingConfig#startWait()},
 *       then refused with that text;
 *   <li>a file/position start is checked as {@code check_start_offset} does: one "impossible
 *       position" error for below 4 and past the end, with coordinates;
 *   <li>ANNOTATE_ROWS only to replicas that set BINLOG_SEND_ANNOTATE_ROWS_EVENT (dump flag 0x02;
 *       MariaDB has no HEARTBEAT_V2, so the flag means this here);
 *   <li>a new dump with the same server_id replaces the old one, which gets ER_SLAVE_SAME_ID
 *       (4052).
 * </ul>
 *
 * Replicas must set {@code @mariadb_slave_capability} to 4 (GTID) or more: older ones need GTID
 * events rewritten into BEGIN queries, which the relay does not do. Texts are MariaDB 10.11's.
 * Stateless.
 */
final class MariadbDumpFlavor implements DumpFlavor {
  static final MariadbDumpFlavor INSTANCE = new MariadbDumpFlavor();

  /** MariaDB's ER_SLAVE_SAME_ID. */
  static final int ER_SLAVE_SAME_ID = 4052;

  /** BINLOG_SEND_ANNOTATE_ROWS_EVENT, MariaDB's dump flag 0x02. */
  static final int SEND_ANNOTATE_ROWS = 0x02;

  static final String IMPOSSIBLE_POSITION =
      "Client requested master to start replication from impossible position";
  static final String CHECKSUM_REFUSED =
      "Slave can not handle replication events with the checksum that master is"
          + " configured to log";
  static final String REPLACED =
      "A slave with the same server_uuid/server_id as this slave has connected to the" + " master";

  private MariadbDumpFlavor() {}

  @Override
  public ReplicaSettings settings(SessionVariables variables) {
    return ReplicaSettings.mariadb(variables);
  }

  @Override
  public StartPlan plan(
      DumpRequest request, ReplicaSettings settings, BinlogSource store, ServingConfig config)
      throws IOException {
    if (settings.mariadbCapability() < ReplicaSettings.MARIADB_CAPABILITY_GTID) {
      return new StartPlan.Refuse(
          DumpFailure.plain(
              "binlog-relay serves MariaDB binlogs to clients that set"
                  + " @mariadb_slave_capability to "
                  + ReplicaSettings.MARIADB_CAPABILITY_GTID
                  + " or more (MariaDB 10.0+"
                  + " replicas, mariadb-binlog, binlog connectors); this client set "
                  + settings.mariadbCapability()
                  + ", and the relay does not rewrite GTID events for older replicas"));
    }
    if (request.startGtids() != null) {
      return gtidPlan((MariadbGtidSet) request.startGtids(), settings, store);
    }
    PositionCheck check = new PositionLookup(store).check(request.binlogFile(), request.position());
    if (check instanceof PositionCheck.Valid valid) {
      return new StartPlan.Stream(
          valid.position(),
          request.position(),
          null,
          positionRule(valid.position().offset()),
          false,
          PositionWatch.NONE,
          null);
    }
    PositionCheck.Invalid invalid = (PositionCheck.Invalid) check;
    return switch (invalid.problem()) {
      case FILE_NOT_FOUND -> DumpFlavor.fileNotFound(request.binlogFile(), store);
      case BELOW_FIRST_EVENT, PAST_FILE_END -> new StartPlan.Refuse(impossiblePosition(request));
      case NOT_YET_READABLE ->
          new StartPlan.Retry(
              invalid.file() + ":" + invalid.offset() + " to be stored",
              impossiblePosition(request));
      case INSIDE_EVENT -> insideEvent(request, invalid, store);
    };
  }

  private static StartPlan.FormatDescriptionRule positionRule(long start) {
    return first ->
        first && start > BinlogFileName.FIRST_EVENT_OFFSET
            ? FormatDescriptionPatch.CLEAR_LOG_POS | FormatDescriptionPatch.CLEAR_CREATED
            : FormatDescriptionPatch.NONE;
  }

  private static StartPlan gtidPlan(
      MariadbGtidSet position, ReplicaSettings settings, BinlogSource store) throws IOException {
    MariadbStart start =
        new MariadbStartLookup(store)
            .find(position, settings.gtidStrictMode(), settings.gtidIgnoreDuplicates());
    if (start instanceof MariadbStart.Found found) {
      MariadbPositionWatch watch = new MariadbPositionWatch(found.filter());
      return new StartPlan.Stream(
          found.start(),
          BinlogFileName.FIRST_EVENT_OFFSET,
          watch,
          first ->
              watch.reachedAtPoll()
                  ? FormatDescriptionPatch.NONE
                  : FormatDescriptionPatch.CLEAR_CREATED,
          false,
          watch,
          null);
    }
    if (start instanceof MariadbStart.Refused refused) {
      if (refused.kind() == MariadbStartException.Kind.NOT_IN_BINLOG) {
        // The replica is ahead of the store: a relay that lags its primary (just started, replaced,
        // or bootstrapped from the archive) has not stored that GTID yet. Wait for it, as for a
        // MySQL replica with more GTIDs than the store, and refuse with MariaDB's text after
        // startWait.
        return new StartPlan.Retry(
            "the store to reach GTID " + refused.gtid(), DumpFailure.plain(refused.message()));
      }
      return new StartPlan.Refuse(DumpFailure.plain(refused.message()));
    }
    if (start instanceof MariadbStart.Purged) {
      return new StartPlan.Refuse(DumpFailure.plain(MariadbStart.Purged.MESSAGE));
    }
    return new StartPlan.Retry("the first binlog file", DumpFailure.plain(FILE_NOT_FOUND));
  }

  /** {@code check_start_offset}'s error, which carries its own coordinates. */
  private static DumpFailure impossiblePosition(DumpRequest request) {
    String file = basename(request.binlogFile());
    return DumpFailure.plain(
        IMPOSSIBLE_POSITION
            + "; the first event '"
            + file
            + "' at "
            + request.position()
            + ", the last event read from '"
            + file
            + "' at 4, the last byte read from '"
            + file
            + "' at 4.");
  }

  private StartPlan insideEvent(
      DumpRequest request, PositionCheck.Invalid invalid, BinlogSource store) throws IOException {
    InsideEventProbe.Result probe = InsideEventProbe.probe(store, invalid.file(), invalid.offset());
    String text =
        switch (probe.outcome()) {
          case BOGUS -> "bogus data in log event";
          case TOO_LARGE ->
              "log event entry exceeded max_allowed_packet; Increase max_allowed_packet on master";
          case TRUNCATED ->
              "binlog truncated in the middle of event; consider out of disk space on master";
        };
    String message =
        withCoordinates(
            text,
            new Coordinates(
                request.binlogFile(),
                request.position(),
                invalid.file(),
                invalid.offset(),
                invalid.offset(),
                invalid.file(),
                probe.bytePosition()));
    return new StartPlan.Stream(
        new Position(invalid.file(), invalid.eventStart()),
        request.position(),
        null,
        positionRule(invalid.offset()),
        false,
        PositionWatch.NONE,
        DumpFailure.plain(message));
  }

  @Override
  public byte[] heartbeat(
      DumpRequest request, long serverId, String file, long position, boolean checksum) {
    return ArtificialEvents.mariadbHeartbeat(serverId, file, position, checksum);
  }

  @Override
  public boolean acceptsChecksum(ReplicaSettings settings, ChecksumAlgorithm fileChecksum) {
    return settings.checksumAware() || !fileChecksum.isChecksummed();
  }

  @Override
  public String checksumRefusal() {
    return CHECKSUM_REFUSED;
  }

  @Override
  public String noFormatDescription() {
    return "Failed to find format descriptor event in start of binlog";
  }

  @Override
  public boolean drops(int eventType, DumpRequest request, ReplicaSettings settings) {
    return eventType == EventType.ANNOTATE_ROWS.code()
        && (request.flags() & SEND_ANNOTATE_ROWS) == 0;
  }

  @Override
  public DumpFailure readFailure(BinlogReadException e) {
    return DumpFailure.whileReading(
        switch (e.reason()) {
          case CORRUPT -> "bogus data in log event";
          case TRUNCATED ->
              "binlog truncated in the middle of event; consider out of disk space on master";
          case REMOVED, REPLACED -> "could not find next log";
        });
  }

  @Override
  public String withCoordinates(String message, Coordinates at) {
    return message
        + "; the first event '"
        + basename(at.startFile())
        + "' at "
        + at.startPosition()
        + ", the last event read from '"
        + at.currentFile()
        + "' at "
        + at.lastEventStart()
        + ", the last byte read from '"
        + at.currentFile()
        + "' at "
        + at.bytePosition()
        + ".";
  }

  @Override
  public Optional<String> replicaKey(DumpRequest request, ReplicaSettings settings) {
    return request.serverId() == 0
        ? Optional.empty()
        : Optional.of("server_id " + request.serverId());
  }

  @Override
  public DumpFailure replaced(boolean fileOpen) {
    return new DumpFailure(ER_SLAVE_SAME_ID, REPLACED, fileOpen);
  }

  /** The newest GTID per domain ({@code @@gtid_binlog_pos}). */
  @Override
  public String executedGtids(GtidSet executed) {
    return ((MariadbGtidSet) executed).toPositionString();
  }

  @Override
  public Optional<String> gtidPositionAt(BinlogSource store, String file, long offset)
      throws IOException {
    return GtidPositionScan.at(store, file, offset).map(MariadbGtidSet::toPositionString);
  }

  private static String basename(String file) {
    int slash = Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'));
    return slash < 0 ? file : file.substring(slash + 1);
  }
}
