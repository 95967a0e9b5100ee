package org.binlogrelay.server.admin;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.server.metrics.ReplicaView;
import org.binlogrelay.server.serving.DumpStatus;
import org.binlogrelay.server.upstream.IngestStats;
import org.binlogrelay.server.upstream.UpstreamReplicator;
import org.binlogrelay.server.upstream.UpstreamState;
import org.binlogrelay.server.upstream.UpstreamStatus;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.ReadableSnapshot;
import org.binlogrelay.storage.StoreHealth;
import org.binlogrelay.storage.read.ReaderRegistry;

/**
 * The JSON objects of docs/admin-api.md ("Objects"), as ordered maps that Jackson renders: field names in
 * camelCase, times as ISO-8601 UTC strings, unknown values {@code null}. Stateless.
 */
final class Views {
  private Views() {}

  static Map<String, Object> relay(RelayControl.RelayFacts r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("state", r.state());
    m.put("version", r.version());
    m.put("flavor", r.flavor());
    m.put("serverId", r.serverId());
    m.put("serverUuid", r.serverUuid());
    m.put("replicaAddress", r.replicaAddress());
    m.put("startedAt", time(r.startedAtMillis()));
    m.put("uptimeSeconds", Math.max(0, r.nowMillis() - r.startedAtMillis()) / 1000.0);
    return m;
  }

  static Map<String, Object> upstream(RelayControl relay) {
    Optional<UpstreamReplicator> r = relay.upstream();
    Map<String, Object> m = new LinkedHashMap<>();
    if (r.isEmpty()) {
      m.put("state", UpstreamStatus.STOPPED.name());
      return m;
    }
    UpstreamState s = r.get().state();
    IngestStats i = r.get().ingestStats();
    m.put("state", s.status() == UpstreamStatus.NEW ? UpstreamStatus.CONNECTING.name() : s.status().name());
    m.put("source", s.source());
    m.put("since", time(s.sinceMillis()));
    m.put("lastError", s.lastError());
    m.put("attempt", s.attempt());
    m.put("connections", s.connections());
    m.put("primaryVersion", s.primaryVersion());
    m.put("primaryServerId", s.primaryServerId() == 0 ? null : s.primaryServerId());
    m.put("tls", s.tls());
    m.put("semiSync", s.semiSync());
    m.put("position", position(s.position()));
    m.put("lastGtid", i.lastGtid());
    m.put("secondsBehind", i.secondsBehind(s.status() == UpstreamStatus.STREAMING, relay.relay().nowMillis(),
        false));
    m.put("bytesReceived", s.bytesReceived());
    m.put("eventsReceived", s.eventsReceived());
    m.put("transactionsReceived", s.transactionsReceived());
    m.put("lastEventAt", s.lastEventMillis() == 0 ? null : time(s.lastEventMillis()));
    return m;
  }

  static Map<String, Object> store(RelayControl relay) {
    BinlogStore store = relay.store();
    Map<String, Object> m = new LinkedHashMap<>();
    if (store == null) {
      m.put("condition", null);
      return m;
    }
    StoreHealth health = store.health();
    List<FileMetadata> files = store.files();
    m.put("condition", health.condition().name());
    m.put("dataDir", store.directory().toAbsolutePath().toString());
    m.put("files", files.size());
    m.put("bytes", files.stream().mapToLong(FileMetadata::size).sum());
    // the head and its GTIDs from one readable snapshot: what replicas can be served, consistently
    ReadableSnapshot readable = store.readableSnapshot();
    m.put("head", position(readable.end()));
    m.put("oldestEventAt", files.isEmpty() || files.get(0).firstEventTime() == 0 ? null
        : time(files.get(0).firstEventTime() * 1000));
    m.put("executedGtids", gtids(readable.executedGtids().toString()));
    m.put("purgedGtids", gtids(store.purgedGtids().toString()));
    m.put("lastError", health.lastError());
    return m;
  }

  static List<Map<String, Object>> binlogs(RelayControl relay) {
    BinlogStore store = relay.store();
    if (store == null) {
      return List.of();
    }
    ReaderRegistry readers = relay.readers();
    List<ReaderRegistry.Registration> registered = readers == null ? List.of() : readers.readers();
    String current = store.currentFile().orElse(null);
    List<Map<String, Object>> out = new ArrayList<>();
    for (FileMetadata f : store.files()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("name", f.name());
      m.put("size", f.size());
      m.put("firstEventAt", f.firstEventTime() == 0 ? null : time(f.firstEventTime() * 1000));
      m.put("lastEventAt", f.lastEventTime() == 0 ? null : time(f.lastEventTime() * 1000));
      m.put("open", !f.closed() || f.name().equals(current));
      m.put("readers", registered.stream().filter(r -> r.position().file().equals(f.name())).count());
      out.add(m);
    }
    return out;
  }

  static Map<String, Object> gtid(RelayControl relay) {
    BinlogStore store = relay.store();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("flavor", store == null ? null : store.flavor().id());
    m.put("executed", store == null ? null : gtids(store.readableSnapshot().executedGtids().toString()));
    m.put("purged", store == null ? null : gtids(store.purgedGtids().toString()));
    return m;
  }

  static Map<String, Object> replica(ReplicaView v) {
    DumpStatus d = v.status();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", d.id());
    m.put("serverId", d.replica().serverId());
    m.put("host", d.replica().host());
    m.put("reportHost", d.replica().reportHost().isEmpty() ? null : d.replica().reportHost());
    m.put("reportPort", d.replica().reportPort() == 0 ? null : d.replica().reportPort());
    m.put("user", d.replica().user());
    m.put("uuid", d.replica().uuid().isEmpty() ? null : d.replica().uuid());
    m.put("mode", d.replica().gtid() ? "gtid" : "position");
    m.put("state", d.state().name());
    m.put("connectedAt", time(d.replica().connectedAtMillis()));
    m.put("position", d.file().isEmpty() ? null : position(new Position(d.file(), d.position())));
    m.put("bytesSent", d.bytesSent());
    m.put("eventsSent", d.eventsSent());
    m.put("transactionsSent", d.transactionsSent());
    m.put("bytesBehind", v.bytesBehind());
    m.put("secondsBehind", v.secondsBehind());
    m.put("sendRateBytesPerSecond", v.sendRate());
    m.put("catchUpRateBytesPerSecond", v.catchUpRate());
    m.put("etaSeconds", v.etaSeconds());
    m.put("stalls", d.stalls());
    m.put("paused", d.paused());
    return m;
  }

  private static Map<String, Object> position(Position p) {
    if (p == null) {
      return null;
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("file", p.file());
    m.put("position", p.offset());
    return m;
  }

  /** A GTID set as one line (the servers print long sets over several lines). */
  private static String gtids(String text) {
    return text.replace("\n", "");
  }

  private static String time(long millis) {
    return Instant.ofEpochMilli(millis).toString();
  }
}
