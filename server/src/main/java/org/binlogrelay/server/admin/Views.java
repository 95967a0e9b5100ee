package org.binlogrelay.server.admin;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.binlogrelay.archive.Archive;
import org.binlogrelay.archive.ArchiveStatus;
import org.binlogrelay.archive.upload.UploadStatus;
import org.binlogrelay.server.metrics.ReplicaView;
import org.binlogrelay.server.serving.DumpStatus;
import org.binlogrelay.server.upstream.IngestStats;
import org.binlogrelay.server.upstream.UpstreamReplicator;
import org.binlogrelay.server.upstream.UpstreamState;
import org.binlogrelay.server.upstream.UpstreamStatus;
import org.binlogrelay.storage.BinlogSource;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.ReadableSnapshot;
import org.binlogrelay.storage.StoreHealth;
import org.binlogrelay.storage.read.ReaderRegistry;
import org.binlogrelay.storage.retention.RetentionRun;

/**
 * The JSON objects of docs/admin-api.md ("Objects" and the endpoints' answers) as records, and how
 * each is made from the relay's state. Jackson renders a record's components in their declared
 * order, so a record's components are the object's keys in the contract's order: field names in
 * camelCase, times as ISO-8601 UTC strings, unknown values {@code null}. The example answers in
 * {@code docs/admin-api/} are checked against what these records render by {@code
 * AdminContractTest}. Stateless; the records are immutable.
 */
final class Views {
  private Views() {}

  /** {@code GET /api/v1/status}: {@code upstream} and {@code archive} {@code null} if none. */
  record StatusJson(
      RelayJson relay,
      UpstreamJson upstream,
      StoreJson store,
      ArchiveJson archive,
      ReplicaCountJson replicas) {}

  /** The {@code replicas} of {@link StatusJson}. */
  record ReplicaCountJson(int connected) {}

  /** Relay. */
  record RelayJson(
      String state,
      String version,
      String flavor,
      long serverId,
      String serverUuid,
      String replicaAddress,
      String startedAt,
      double uptimeSeconds) {}

  /** Upstream: the replicator's state, or only {@code state} when there is no replicator. */
  sealed interface UpstreamJson permits ReplicatorJson, NoReplicatorJson {
    String state();

    Double secondsBehind();
  }

  /** Upstream with a replicator. */
  record ReplicatorJson(
      String state,
      String source,
      String since,
      String lastError,
      int attempt,
      long connections,
      String primaryVersion,
      Long primaryServerId,
      String tls,
      boolean semiSync,
      PositionJson position,
      String lastGtid,
      Double secondsBehind,
      long bytesReceived,
      long eventsReceived,
      long transactionsReceived,
      String lastEventAt)
      implements UpstreamJson {}

  /** Upstream without a replicator: {@code {"state": "STOPPED"}}. */
  record NoReplicatorJson(String state) implements UpstreamJson {
    @Override
    public Double secondsBehind() {
      return null;
    }
  }

  /** The answer of {@code POST /api/v1/upstream/change}: Upstream plus {@code switchedFrom}. */
  record SwitchedUpstreamJson(@JsonUnwrapped UpstreamJson upstream, String switchedFrom) {}

  /** Store: the open store, or only {@code condition} ({@code null}) before it is open. */
  sealed interface StoreJson permits OpenStoreJson, NoStoreJson {}

  /** Store, open. */
  record OpenStoreJson(
      String condition,
      String dataDir,
      int files,
      long bytes,
      PositionJson head,
      String oldestEventAt,
      String executedGtids,
      String purgedGtids,
      String lastError)
      implements StoreJson {}

  /** Store before it is open: {@code {"condition": null}}. */
  record NoStoreJson(String condition) implements StoreJson {}

  /**
   * Binlog; {@code tier} is where the relay holds it: {@code local}, {@code local,archive} or
   * {@code archive} (see {@link #TIER_LOCAL}).
   */
  record BinlogJson(
      String name,
      long size,
      String firstEventAt,
      String lastEventAt,
      boolean open,
      long readers,
      String tier) {}

  /** A file only in the data directory (every file without an archive). */
  static final String TIER_LOCAL = "local";

  /** A file in the data directory and archived (uploaded and verified). */
  static final String TIER_BOTH = "local,archive";

  /** A file only in the archive (served after a fetch into the cache). */
  static final String TIER_ARCHIVE = "archive";

  /**
   * Archive ({@code GET /api/v1/archive}, the {@code archive} of {@link StatusJson}): the
   * uploader's state and backlog, what the archive holds, the fetch cache, and the last failure
   * with what to do about it.
   */
  record ArchiveJson(
      String location,
      String state,
      String currentFile,
      long pendingFiles,
      long pendingBytes,
      long oldestPendingAgeSeconds,
      long uploadedFiles,
      long uploadedBytes,
      int archivedFiles,
      long archivedBytes,
      String firstArchived,
      String lastArchived,
      long cacheBytes,
      long fetches,
      long fetchedBytes,
      long fetchFailures,
      long deletedFiles,
      String lastErrorKind,
      String lastError,
      String advice,
      String lastErrorAt,
      String nextAttemptAt,
      String encoding,
      String encryptionKeyId,
      long maxUploadRateBytesPerSecond) {}

  /** {@code GET /api/v1/gtid}. */
  record GtidJson(String flavor, String executed, String purged) {}

  /** Replica. */
  record ReplicaJson(
      long id,
      long serverId,
      String host,
      String reportHost,
      Integer reportPort,
      String user,
      String uuid,
      String mode,
      String state,
      String connectedAt,
      PositionJson position,
      long bytesSent,
      long eventsSent,
      long transactionsSent,
      long bytesBehind,
      Double secondsBehind,
      Double sendRateBytesPerSecond,
      Double catchUpRateBytesPerSecond,
      Double etaSeconds,
      long stalls,
      boolean paused) {}

  /** Binlog coordinates: {@code {"file": "binlog.000042", "position": 157}}. */
  record PositionJson(String file, long position) {}

  /** {@code GET /api/v1/lag}. */
  record LagJson(UpstreamLagJson upstream, List<ReplicaJson> replicas) {}

  /** The {@code upstream} of {@link LagJson}: both {@code null} without a configured primary. */
  record UpstreamLagJson(Double secondsBehind, String state) {}

  /** The answer of {@code POST /api/v1/binlogs/purge}. */
  record PurgeJson(
      List<String> removed,
      List<String> kept,
      List<String> keptForReplicas,
      long bytes,
      int forced) {}

  /** The answer of {@code POST /api/v1/binlogs/rotate}. */
  record RotatedJson(String rotatedTo) {}

  /** The answer of {@code POST /api/v1/replicas/{id}/kick}. */
  record KickedJson(long kicked) {}

  /**
   * The answer of {@code /health} and {@code /ready}: {@code reason} only when not up or not ready.
   */
  record ProbeJson(String status, @JsonInclude(JsonInclude.Include.NON_NULL) String reason) {}

  /** An error answer. */
  record ErrorJson(String error, String code) {}

  static RelayJson relay(RelayControl.RelayFacts r) {
    return new RelayJson(
        r.state(),
        r.version(),
        r.flavor(),
        r.serverId(),
        r.serverUuid(),
        r.replicaAddress(),
        time(r.startedAtMillis()),
        Math.max(0, r.nowMillis() - r.startedAtMillis()) / 1000.0);
  }

  static UpstreamJson upstream(RelayControl relay) {
    Optional<UpstreamReplicator> r = relay.upstream();
    if (r.isEmpty()) {
      return new NoReplicatorJson(UpstreamStatus.STOPPED.name());
    }
    UpstreamState s = r.get().state();
    IngestStats i = r.get().ingestStats();
    return new ReplicatorJson(
        s.status() == UpstreamStatus.NEW ? UpstreamStatus.CONNECTING.name() : s.status().name(),
        s.source(),
        time(s.sinceMillis()),
        s.lastError(),
        s.attempt(),
        s.connections(),
        s.primaryVersion(),
        s.primaryServerId() == 0 ? null : s.primaryServerId(),
        s.tls(),
        s.semiSync(),
        position(s.position()),
        i.lastGtid(),
        i.secondsBehind(s.status() == UpstreamStatus.STREAMING, relay.relay().nowMillis(), false),
        s.bytesReceived(),
        s.eventsReceived(),
        s.transactionsReceived(),
        s.lastEventMillis() == 0 ? null : time(s.lastEventMillis()));
  }

  static StoreJson store(RelayControl relay) {
    BinlogStore store = relay.store();
    if (store == null) {
      return new NoStoreJson(null);
    }
    StoreHealth health = store.health();
    List<FileMetadata> files = store.files();
    // the head and its GTIDs from one readable snapshot: what replicas can be served, consistently
    ReadableSnapshot readable = store.readableSnapshot();
    return new OpenStoreJson(
        health.condition().name(),
        store.directory().toAbsolutePath().toString(),
        files.size(),
        files.stream().mapToLong(FileMetadata::size).sum(),
        position(readable.end()),
        files.isEmpty() || files.get(0).firstEventTime() == 0
            ? null
            : time(files.get(0).firstEventTime() * 1000),
        gtids(readable.executedGtids().toString()),
        gtids(store.purgedGtids().toString()),
        health.lastError());
  }

  /**
   * The files replicas can be served, oldest first: with an archive, the archived files before the
   * store's ({@link RelayControl#binlogs()}), each with its tier.
   */
  static List<BinlogJson> binlogs(RelayControl relay) {
    BinlogStore store = relay.store();
    if (store == null) {
      return List.of();
    }
    BinlogSource source = relay.binlogs() == null ? store : relay.binlogs();
    Optional<Archive> archive = relay.archive();
    ReaderRegistry readers = relay.readers();
    List<ReaderRegistry.Registration> registered = readers == null ? List.of() : readers.readers();
    String current = store.currentFile().orElse(null);
    List<BinlogJson> out = new ArrayList<>();
    for (FileMetadata f : source.files()) {
      boolean local = store.file(f.name()).isPresent();
      out.add(
          new BinlogJson(
              f.name(),
              f.size(),
              f.firstEventTime() == 0 ? null : time(f.firstEventTime() * 1000),
              f.lastEventTime() == 0 ? null : time(f.lastEventTime() * 1000),
              local && (!f.closed() || f.name().equals(current)),
              registered.stream().filter(r -> r.position().file().equals(f.name())).count(),
              tier(f, local, archive)));
    }
    return out;
  }

  private static String tier(FileMetadata f, boolean local, Optional<Archive> archive) {
    if (archive.isEmpty()) {
      return TIER_LOCAL;
    }
    if (!local) {
      return TIER_ARCHIVE;
    }
    if (!f.closed()) {
      return TIER_LOCAL; // the open file is archived only once closed
    }
    Archive a = archive.get();
    // the catalog (in memory) first; the uploader's state file for a file this relay uploaded
    return a.tier().archived(f.name()) || a.gate().archived(f.name()) ? TIER_BOTH : TIER_LOCAL;
  }

  /** The archive's state now. */
  static ArchiveJson archive(Archive archive) {
    ArchiveStatus s = archive.status();
    UploadStatus u = s.upload();
    return new ArchiveJson(
        s.location(),
        u == null ? null : u.state().name(),
        u == null ? null : u.currentFile(),
        s.pendingFiles(),
        s.pendingBytes(),
        s.oldestPendingAgeSeconds(),
        s.uploadedFiles(),
        s.uploadedBytes(),
        s.archivedFiles(),
        s.archivedBytes(),
        s.firstArchived(),
        s.lastArchived(),
        s.cacheBytes(),
        s.fetches(),
        s.fetchedBytes(),
        s.fetchFailures(),
        s.deletedFiles(),
        u == null || u.lastFailureKind() == null ? null : u.lastFailureKind().name(),
        u == null ? null : u.lastError(),
        u == null ? null : u.advice(),
        u == null || u.lastErrorAt() == null ? null : u.lastErrorAt().toString(),
        u == null || u.nextAttempt() == null ? null : u.nextAttempt().toString(),
        s.encoding(),
        s.encryptionKeyId(),
        s.maxUploadRateBytesPerSecond());
  }

  static GtidJson gtid(RelayControl relay) {
    BinlogStore store = relay.store();
    return new GtidJson(
        store == null ? null : store.flavor().id(),
        store == null ? null : gtids(store.readableSnapshot().executedGtids().toString()),
        store == null ? null : gtids(store.purgedGtids().toString()));
  }

  static ReplicaJson replica(ReplicaView v) {
    DumpStatus d = v.status();
    DumpStatus.Replica who = d.replica();
    return new ReplicaJson(
        d.id(),
        who.serverId(),
        who.host(),
        who.reportHost().isEmpty() ? null : who.reportHost(),
        who.reportPort() == 0 ? null : who.reportPort(),
        who.user(),
        who.uuid().isEmpty() ? null : who.uuid(),
        who.gtid() ? "gtid" : "position",
        d.state().name(),
        time(who.connectedAtMillis()),
        d.file().isEmpty() ? null : position(new Position(d.file(), d.position())),
        d.bytesSent(),
        d.eventsSent(),
        d.transactionsSent(),
        v.bytesBehind(),
        v.secondsBehind(),
        v.sendRate(),
        v.catchUpRate(),
        v.etaSeconds(),
        d.stalls(),
        d.paused());
  }

  static StatusJson status(RelayControl relay) {
    return new StatusJson(
        relay(relay.relay()),
        relay.primaryConfigured() ? upstream(relay) : null,
        store(relay),
        relay.archive().map(Views::archive).orElse(null),
        new ReplicaCountJson(relay.replicas().size()));
  }

  static LagJson lag(RelayControl relay) {
    UpstreamJson u = relay.primaryConfigured() ? upstream(relay) : null;
    return new LagJson(
        new UpstreamLagJson(u == null ? null : u.secondsBehind(), u == null ? null : u.state()),
        relay.replicas().stream().map(Views::replica).toList());
  }

  static PurgeJson purge(RetentionRun run) {
    List<String> kept = new ArrayList<>(run.keptForReaders());
    kept.addAll(run.keptUnsafe());
    return new PurgeJson(run.removed(), kept, run.keptForReaders(), run.bytes(), run.forced());
  }

  private static PositionJson position(Position p) {
    return p == null ? null : new PositionJson(p.file(), p.offset());
  }

  /** A GTID set as one line (the servers print long sets over several lines). */
  private static String gtids(String text) {
    return text.replace("\n", "");
  }

  private static String time(long millis) {
    return Instant.ofEpochMilli(millis).toString();
  }
}
