package org.binlogrelay.server.downstream.sql;

import java.util.Map;
import java.util.Optional;

/**
 * Where statements read the relay's own replication from its primary ({@link SourceStatus}).
 * Implemented by the relay's composition root over its upstream replicator and store; {@link #NONE}
 * for a relay that follows no primary (then {@code SHOW REPLICA STATUS} is empty, as on a server
 * that is no replica). Implementations are thread-safe: every connection's event loop calls them,
 * and they must not block.
 */
@FunctionalInterface
public interface ReplicationSource {

  /** The relay's replication now; empty if it follows no primary. */
  Optional<SourceStatus> status();

  /**
   * The primary's binlog and replication variables as read at its last connection ({@link
   * SourceStatus#primaryVariables()}), lower-case names; empty before one. Cheaper than {@link
   * #status()}.
   */
  default Map<String, String> primaryVariables() {
    return status().map(SourceStatus::primaryVariables).orElse(Map.of());
  }

  /** A relay without a primary. */
  ReplicationSource NONE = Optional::empty;
}
