package org.binlogrelay.server;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import org.binlogrelay.archive.Archive;
import org.binlogrelay.server.admin.ApiException;
import org.binlogrelay.server.admin.RelayControl;
import org.binlogrelay.server.metrics.ReplicaView;
import org.binlogrelay.server.serving.StoreDumpHandler;
import org.binlogrelay.server.upstream.PrimaryErrorException;
import org.binlogrelay.server.upstream.PrimaryStatements;
import org.binlogrelay.server.upstream.SourceRefusedException;
import org.binlogrelay.server.upstream.SourceSwitch;
import org.binlogrelay.server.upstream.UpstreamConfig;
import org.binlogrelay.server.upstream.UpstreamReplicator;
import org.binlogrelay.server.upstream.UpstreamStatus;
import org.binlogrelay.storage.BinlogSource;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.Time;
import org.binlogrelay.storage.read.ReaderRegistry;
import org.binlogrelay.storage.retention.RetentionRun;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin API's view of a {@link Relay}: reads its parts, and turns commands into the relay's
 * operations with the answers docs/admin-api.md names (409 for a state that does not allow the
 * command, 503 for a primary that cannot be reached in time). Thread-safe (the relay's operations
 * are).
 */
final class RelayAdmin implements RelayControl {
  private static final Logger LOG = LoggerFactory.getLogger(RelayAdmin.class);
  private static final long POLL_MILLIS = 20;

  private final Relay relay;
  private final Time time;
  private final Duration commandTimeout;

  /**
   * @param commandTimeout how long stop, change and rotate wait before they answer 503 (or 409 for
   *     rotate)
   */
  RelayAdmin(Relay relay, Time time, Duration commandTimeout) {
    this.relay = relay;
    this.time = time;
    this.commandTimeout = commandTimeout;
  }

  @Override
  public RelayFacts relay() {
    FlavorDetection f = relay.flavor();
    String flavor = f == null ? null : f.flavor().id();
    String address =
        relay.replicaServer() == null ? null : hostPort(relay.replicaServer().address());
    return new RelayFacts(
        relay.state().name(),
        RelayMain.Version.projectVersion(),
        flavor,
        relay.config().downstream().serverId(),
        relay.config().downstream().serverUuid(),
        address,
        relay.startedAtMillis(),
        time.milliseconds());
  }

  private static String hostPort(InetSocketAddress a) {
    String host = a.getAddress().getHostAddress();
    return (host.contains(":") ? "[" + host + "]" : host) + ":" + a.getPort();
  }

  @Override
  public BinlogStore store() {
    return relay.store();
  }

  /** The store and, with an archive, the archived files before it; null before the store opens. */
  @Override
  public BinlogSource binlogs() {
    return relay.binlogs();
  }

  @Override
  public Optional<Archive> archive() {
    return relay.archive();
  }

  @Override
  public ReaderRegistry readers() {
    return relay.readers();
  }

  @Override
  public boolean primaryConfigured() {
    return relay.upstreamConfig() != null;
  }

  @Override
  public Optional<UpstreamReplicator> upstream() {
    return relay.upstream();
  }

  @Override
  public List<ReplicaView> replicas() {
    return relay.metrics() == null ? List.of() : relay.metrics().lag().sample();
  }

  @Override
  public boolean pause(long id) {
    StoreDumpHandler d = relay.dumps();
    return d != null && d.pause(id);
  }

  @Override
  public Optional<Boolean> paused(long id) {
    StoreDumpHandler d = relay.dumps();
    return d == null ? Optional.empty() : d.dump(id).map(s -> s.paused());
  }

  @Override
  public boolean resume(long id) {
    StoreDumpHandler d = relay.dumps();
    return d != null && d.resume(id);
  }

  @Override
  public boolean kick(long id) {
    StoreDumpHandler d = relay.dumps();
    return d != null && d.kick(id);
  }

  @Override
  public void stopUpstream() throws ApiException {
    try {
      if (!relay.stopUpstream(commandTimeout)) {
        throw new ApiException(
            503,
            "unavailable",
            "the upstream thread did not end within "
                + commandTimeout.toSeconds()
                + " s (it finishes a store append); ask again");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ApiException(503, "unavailable", "interrupted while stopping the upstream");
    } catch (IllegalStateException e) {
      throw new ApiException(409, "conflict", e.getMessage());
    }
  }

  @Override
  public void startUpstream() throws ApiException {
    try {
      relay.startUpstream();
    } catch (IllegalStateException e) {
      throw new ApiException(409, "conflict", e.getMessage());
    }
  }

  @Override
  public SourceSwitch changeUpstream(String host, Integer port, String user, String password)
      throws ApiException {
    UpstreamConfig c = relay.upstreamConfig();
    UpstreamConfig next;
    try {
      next =
          new UpstreamConfig(
              host == null ? c.host() : host,
              port == null ? c.port() : port,
              user == null ? c.user() : user,
              password == null ? c.password() : password,
              c.serverId(),
              c.replicaUuid(),
              c.reportHost(),
              c.reportPort(),
              c.heartbeatPeriod(),
              c.deadAfterHeartbeats(),
              c.connectTimeout(),
              c.start(),
              c.backoff(),
              c.semiSync(),
              c.tls());
    } catch (IllegalArgumentException e) {
      throw new ApiException(400, "bad_request", e.getMessage());
    }
    try {
      SourceSwitch done = relay.changeUpstream(next, commandTimeout);
      String from = c.host() + ":" + c.port();
      return done != null
          ? done
          : new SourceSwitch(
              from,
              next.host() + ":" + next.port(),
              relay.store().readableEnd(),
              relay.store().executedGtids().toString());
    } catch (SourceRefusedException e) {
      throw new ApiException(409, "conflict", e.getMessage());
    } catch (TimeoutException e) {
      throw new ApiException(
          503,
          "unavailable",
          "the check of "
              + next.host()
              + ":"
              + next.port()
              + " did not finish"
              + " within "
              + commandTimeout.toSeconds()
              + " s; it goes on, GET /api/v1/upstream shows the outcome");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ApiException(503, "unavailable", "interrupted while switching the source");
    } catch (IllegalStateException e) {
      throw new ApiException(409, "conflict", e.getMessage());
    }
  }

  @Override
  public String rotate() throws ApiException {
    UpstreamConfig c = relay.upstreamConfig();
    BinlogStore store = relay.store();
    String before = store.currentFile().orElse(null);
    Optional<UpstreamStatus> status = relay.upstream().map(u -> u.state().status());
    if (status.isEmpty()
        || status.get() == UpstreamStatus.STOPPED
        || status.get() == UpstreamStatus.FAILED) {
      throw new ApiException(
          409,
          "conflict",
          "the upstream is "
              + status.map(Enum::name).orElse("not running")
              + ": the relay would not store the primary's new file; start it first (relayctl source start)");
    }
    try {
      PrimaryStatements.execute(c, "FLUSH BINARY LOGS");
    } catch (PrimaryErrorException e) {
      throw new ApiException(
          409,
          "conflict",
          "the primary refused FLUSH BINARY LOGS: "
              + e.getMessage()
              + (e.getMessage().contains("1227")
                  ? " (the relay's user needs the RELOAD privilege)"
                  : ""));
    } catch (IOException e) {
      throw new ApiException(
          503,
          "unavailable",
          "cannot reach the primary "
              + c.host()
              + ":"
              + c.port()
              + " to run FLUSH BINARY LOGS: "
              + e.getMessage());
    }
    LOG.info(
        "FLUSH BINARY LOGS run on {}:{} through the admin API; waiting for the new file",
        c.host(),
        c.port());
    long deadline = time.nanoseconds() + commandTimeout.toNanos();
    while (time.nanoseconds() < deadline) {
      List<FileMetadata> files = store.files();
      if (!files.isEmpty()) {
        String last = files.get(files.size() - 1).name();
        if (before == null || (!last.equals(before) && newer(last, before))) {
          return last;
        }
      }
      try {
        time.sleep(Duration.ofMillis(POLL_MILLIS));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    throw new ApiException(
        409,
        "conflict",
        "the primary rotated, but the relay has not stored a new file within "
            + commandTimeout.toSeconds()
            + " s (upstream "
            + relay.upstream().map(u -> u.state().status().name()).orElse("not running")
            + "); GET /api/v1/binlogs shows when it arrives");
  }

  private static boolean newer(String a, String b) {
    return new Position(a, 4).isAfter(new Position(b, 4));
  }

  @Override
  public RetentionRun purge(String to, Instant before, boolean force) throws ApiException {
    BinlogStore store = relay.store();
    if (store == null) {
      throw new ApiException(503, "unavailable", "the store is not open yet");
    }
    String firstKept = to;
    if (to != null && store.files().stream().noneMatch(f -> f.name().equals(to))) {
      List<FileMetadata> files = store.files();
      throw new ApiException(
          404,
          "not_found",
          "Target log not found in binlog index: the relay holds "
              + (files.isEmpty()
                  ? "no file"
                  : files.get(0).name() + " to " + files.get(files.size() - 1).name()));
    }
    if (before != null) {
      long seconds = before.getEpochSecond();
      List<FileMetadata> files = store.files();
      firstKept = files.isEmpty() ? null : files.get(files.size() - 1).name();
      for (FileMetadata f : files) {
        if (f.lastEventTime() == 0 || f.lastEventTime() >= seconds) {
          firstKept = f.name();
          break;
        }
      }
      if (firstKept == null) {
        throw new ApiException(409, "conflict", "the store holds no file");
      }
    }
    try {
      RetentionRun run = relay.purge(firstKept, force);
      LOG.info(
          "purge through the admin API up to {}{}: removed {}, kept {} for replicas",
          firstKept,
          force ? " (forced)" : "",
          run.removed(),
          run.keptForReaders());
      return run;
    } catch (IllegalArgumentException e) {
      throw new ApiException(404, "not_found", e.getMessage());
    } catch (IOException e) {
      throw new ApiException(500, "internal", "purging failed: " + e.getMessage());
    } catch (IllegalStateException e) {
      throw new ApiException(409, "conflict", e.getMessage());
    }
  }

  @Override
  public Optional<String> unhealthy() {
    Relay.State s = relay.state();
    if (s == Relay.State.CLOSING || s == Relay.State.CLOSED) {
      return Optional.of("the relay is " + s.name().toLowerCase(Locale.ROOT));
    }
    // FAILED does not cure itself (BACKING_OFF and WAITING_FOR_STORE do): someone must act
    return relay
        .upstream()
        .map(UpstreamReplicator::state)
        .filter(u -> u.status() == UpstreamStatus.FAILED)
        .map(u -> "the upstream FAILED: " + u.lastError());
  }

  @Override
  public Optional<String> notReady() {
    if (relay.state() != Relay.State.RUNNING) {
      return Optional.of("the relay is " + relay.state().name().toLowerCase(Locale.ROOT));
    }
    BinlogStore store = relay.store();
    if (store == null) {
      return Optional.of("the store is not open");
    }
    if (!store.health().accepting()) {
      return Optional.of(
          "the store does not accept writes: "
              + store.health().condition()
              + ": "
              + store.health().lastError());
    }
    if (relay.replicaServer() == null) {
      return Optional.of("the replica port does not listen");
    }
    return Optional.empty();
  }

  @Override
  public String scrape() {
    return relay.metrics() == null ? "" : relay.metrics().scrape();
  }

  @Override
  public String scrape(Set<String> names) {
    return relay.metrics() == null ? "" : relay.metrics().scrape(names);
  }
}
