package org.binlogrelay.server.downstream;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.binlogrelay.server.downstream.sql.ReplicaInfo;

/**
 * The replicas that registered (COM_REGISTER_SLAVE) on connections that are still open, by
 * connection id; what {@code SHOW REPLICAS} lists. A connection's entry goes when it closes.
 * Bounded by the connection limit.
 *
 * <p>Thread-safe (a concurrent map of immutable entries).
 */
public final class ReplicaRegistry {
  private final Map<Long, ReplicaInfo> byConnection = new ConcurrentHashMap<>();

  public void register(long connectionId, ReplicaInfo replica) {
    byConnection.put(connectionId, replica);
  }

  public void unregister(long connectionId) {
    byConnection.remove(connectionId);
  }

  /** The registered replicas, by server id. */
  public List<ReplicaInfo> list() {
    List<ReplicaInfo> all = new ArrayList<>(byConnection.values());
    all.sort(Comparator.comparingLong(ReplicaInfo::serverId));
    return all;
  }
}
