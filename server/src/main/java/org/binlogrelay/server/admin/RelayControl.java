package org.binlogrelay.server.admin;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.binlogrelay.archive.Archive;
import org.binlogrelay.server.metrics.ReplicaView;
import org.binlogrelay.server.upstream.SourceSwitch;
import org.binlogrelay.server.upstream.UpstreamReplicator;
import org.binlogrelay.storage.BinlogSource;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.read.ReaderRegistry;
import org.binlogrelay.storage.retention.RetentionRun;

/**
 * What the admin API reads and commands of the relay. The relay's composition root implements it;
 * the API turns it into JSON ({@link AdminApi}). Implementations are thread-safe; commands may
 * block (the API runs them off the network threads) and throw {@link ApiException} with the status
 * and text to answer.
 */
public interface RelayControl {

  /** The relay's identity and life. */
  RelayFacts relay();

  /** The store, {@code null} before it is open. */
  BinlogStore store();

  /**
   * What replicas, listings and point-in-time recovery read: the store and, with an archive
   * configured, the archived files before it ({@code TieredBinlog}); {@code null} before the store
   * is open.
   */
  default BinlogSource binlogs() {
    return store();
  }

  /** The archive, if one is configured ({@code --archive}). */
  default Optional<Archive> archive() {
    return Optional.empty();
  }

  /** The readers of the store (replicas' dumps), for each file's reader count. */
  ReaderRegistry readers();

  /** Whether a primary is configured at all (without one the upstream endpoints answer 409). */
  boolean primaryConfigured();

  /** The upstream replicator now; empty without a primary or before the start. */
  Optional<UpstreamReplicator> upstream();

  /** Every replica's feed with its lag, measured now. */
  List<ReplicaView> replicas();

  /** Pauses dump {@code id}'s feed; false if no such dump. */
  boolean pause(long id);

  /** Whether dump {@code id}'s feed is paused now; empty if no such dump. Cheap (no lag sample). */
  Optional<Boolean> paused(long id);

  /** Resumes dump {@code id}'s feed; false if no such dump. */
  boolean resume(long id);

  /** Disconnects dump {@code id}; false if no such dump. */
  boolean kick(long id);

  /** Stops following the primary (waits for the replicator to end). */
  void stopUpstream() throws ApiException;

  /** Follows the primary again with a new replicator (after a stop, or after it FAILED). */
  void startUpstream() throws ApiException;

  /**
   * Switches to another source by GTID; {@code null} arguments keep the current values.
   *
   * @throws ApiException 409 with the reason if the new source cannot continue the store
   */
  SourceSwitch changeUpstream(String host, Integer port, String user, String password)
      throws ApiException;

  /** FLUSH BINARY LOGS on the primary; returns the new file once the relay stored it. */
  String rotate() throws ApiException;

  /** Purges up to {@code to} (exclusive) or the files whose last event is before {@code before}. */
  RetentionRun purge(String to, Instant before, boolean force) throws ApiException;

  /** Why the relay is not healthy, empty if it is. */
  Optional<String> unhealthy();

  /** Why the relay is not ready, empty if it is. */
  Optional<String> notReady();

  /** The Prometheus text exposition. */
  String scrape();

  /**
   * The Prometheus text exposition of the metric families named in {@code names} only (as they are
   * exposed: {@code jvm_memory_used_bytes}, {@code binlogrelay_..._total}), for {@code
   * /metrics?name[]=...}; all of them when {@code names} is empty.
   */
  default String scrape(Set<String> names) {
    return scrape();
  }

  /**
   * The relay's identity.
   *
   * @param state the relay's life state (RUNNING, ...)
   * @param version the relay's version
   * @param flavor {@code mysql} or {@code mariadb}, {@code null} before it is known
   * @param serverId the relay's server_id
   * @param serverUuid the relay's server_uuid as replicas see it
   * @param replicaAddress {@code host:port} replicas connect to, {@code null} before it listens
   * @param startedAtMillis when the process started, epoch milliseconds
   * @param nowMillis the relay's clock now
   */
  record RelayFacts(
      String state,
      String version,
      String flavor,
      long serverId,
      String serverUuid,
      String replicaAddress,
      long startedAtMillis,
      long nowMillis) {}
}
