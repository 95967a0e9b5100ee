package org.binlogrelay.server;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.binlogrelay.server.downstream.DumpActivity;
import org.binlogrelay.server.downstream.sql.BinlogListing;
import org.binlogrelay.server.downstream.sql.ProcessInfo;
import org.binlogrelay.server.downstream.sql.ReplicationSource;
import org.binlogrelay.server.downstream.sql.SourceStatus;
import org.binlogrelay.server.serving.StoreDumpHandler;
import org.binlogrelay.server.upstream.IngestStats;
import org.binlogrelay.server.upstream.TlsConfig;
import org.binlogrelay.server.upstream.TlsMode;
import org.binlogrelay.server.upstream.UpstreamConfig;
import org.binlogrelay.server.upstream.UpstreamReplicator;
import org.binlogrelay.server.upstream.UpstreamState;
import org.binlogrelay.server.upstream.UpstreamStatus;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.StoreHealth;
import org.binlogrelay.storage.Time;

/**
 * What the relay's SQL port reports about the relay itself: its replication from the primary
 * ({@link ReplicationSource}, for {@code SHOW REPLICA STATUS} and {@code
 * performance_schema.replication_connection_*}), read from the current {@link UpstreamReplicator},
 * its configuration and the store; and each dump's state ({@link DumpActivity}, for {@code SHOW
 * PROCESSLIST}) from the {@link StoreDumpHandler}. The narrow interfaces keep the SQL layer unaware
 * of the upstream and serving packages.
 *
 * <p>Thread-safe: every read is of thread-safe sources (the replicator's snapshots, the store's
 * atomics).
 */
final class UpstreamReport implements ReplicationSource {
  /** "...: error 1236 (HY000): ..." in a {@code PrimaryErrorException}'s text. */
  private static final Pattern PRIMARY_ERROR = Pattern.compile(": error (\\d{1,5}) \\(");

  /** CR_CONN_HOST_ERROR: what a MySQL replica reports when its source cannot be reached. */
  private static final int CONNECTION_FAILED = 2003;

  private final Supplier<Optional<UpstreamReplicator>> upstream;
  private final Supplier<BinlogStore> store;
  private final BinlogListing listing;
  private final Time time;

  UpstreamReport(
      Supplier<Optional<UpstreamReplicator>> upstream,
      Supplier<BinlogStore> store,
      BinlogListing listing,
      Time time) {
    this.upstream = upstream;
    this.store = store;
    this.listing = listing;
    this.time = time;
  }

  @Override
  public Map<String, String> primaryVariables() {
    return upstream.get().map(UpstreamReplicator::primaryVariables).orElse(Map.of());
  }

  @Override
  public Optional<SourceStatus> status() {
    Optional<UpstreamReplicator> current = upstream.get();
    BinlogStore s = store.get();
    if (current.isEmpty() || s == null) {
      return Optional.empty();
    }
    UpstreamReplicator r = current.get();
    UpstreamConfig config = r.config();
    UpstreamState state = r.state();
    IngestStats ingest = r.ingestStats();
    StoreHealth health = s.health();
    Position read = state.position();
    Position end = s.readableEnd();
    long bytes = s.files().stream().mapToLong(FileMetadata::size).sum();
    TlsConfig tls = config.tls();
    String lastError = state.lastError() == null ? "" : state.lastError();
    Map<String, String> variables = r.primaryVariables();
    boolean streaming = state.status() == UpstreamStatus.STREAMING;
    return Optional.of(
        new SourceStatus(
            config.host(),
            config.port(),
            config.user(),
            io(state),
            health.accepting(),
            health.lastError() == null ? "" : health.lastError(),
            read == null ? "" : read.file(),
            read == null ? 0 : read.offset(),
            end == null ? "" : end.file(),
            end == null ? 0 : end.offset(),
            bytes,
            state.primaryServerId(),
            variables.getOrDefault("server_uuid", ""),
            listing.executedGtids(),
            listing.executedGtids(),
            ingest.secondsBehind(streaming, time.milliseconds(), false),
            errno(lastError),
            lastError,
            lastError.isEmpty() ? 0 : r.lastErrorMillis(),
            Math.max(1, (config.backoff().initial().toMillis() + 999) / 1000),
            config.heartbeatPeriod().toMillis() / 1000.0,
            state.heartbeatsReceived(),
            state.lastEventMillis(),
            tls.mode() != TlsMode.DISABLED,
            tls.mode().verifiesCertificate(),
            path(tls.ca()),
            path(tls.cert()),
            path(tls.key()),
            "",
            "",
            false,
            state.semiSync(),
            ingest.lastGtid() == null ? "" : ingest.lastGtid(),
            ingest.originalCommitMicros(),
            ingest.immediateCommitMicros(),
            state.transactionsReceived(),
            state.eventsReceived(),
            variables));
  }

  private static SourceStatus.IoState io(UpstreamState state) {
    switch (state.status()) {
      case STREAMING:
        return SourceStatus.IoState.STREAMING;
      case BACKING_OFF:
        return SourceStatus.IoState.RECONNECTING;
      case WAITING_FOR_STORE:
        return SourceStatus.IoState.WAITING_FOR_STORE;
      case STOPPED:
        return SourceStatus.IoState.STOPPED;
      case FAILED:
        return SourceStatus.IoState.FAILED;
      default:
        return SourceStatus.IoState.CONNECTING;
    }
  }

  /**
   * The primary's error number when it refused, else CR_CONN_HOST_ERROR for a connection that
   * failed.
   */
  static int errno(String lastError) {
    if (lastError.isEmpty()) {
      return 0;
    }
    Matcher m = PRIMARY_ERROR.matcher(lastError);
    return m.find() ? Integer.parseInt(m.group(1)) : CONNECTION_FAILED;
  }

  private static String path(Path p) {
    return p == null ? "" : p.toString();
  }

  /** Each dump's state, by connection id, from the serving side. */
  static DumpActivity dumps(Supplier<StoreDumpHandler> handler) {
    return id -> {
      StoreDumpHandler h = handler.get();
      if (h == null) {
        return Optional.empty();
      }
      return h.dump(id)
          .map(
              d -> {
                switch (d.state()) {
                  case STARTING:
                    return ProcessInfo.Activity.DUMP_STARTING;
                  case CAUGHT_UP:
                    return ProcessInfo.Activity.DUMP_WAITING;
                  case PAUSED:
                    return ProcessInfo.Activity.DUMP_PAUSED;
                  default:
                    return ProcessInfo.Activity.DUMP_SENDING;
                }
              });
    };
  }
}
