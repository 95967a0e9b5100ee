package org.binlogrelay.e2e.servers;

import java.time.Duration;
import java.util.List;

/**
 * A primary and replicas replicating from it directly, as made by {@link
 * ServerFarm#startPrimaryWithReplicas}.
 */
public record Topology(DatabaseServer primary, List<ReplicationLink> links) {

  public Topology {
    links = List.copyOf(links);
  }

  public List<DatabaseServer> replicas() {
    return links.stream().map(ReplicationLink::replica).toList();
  }

  /** Waits until every replica has executed what the primary has executed now. */
  public void awaitCaughtUp(Duration timeout) {
    for (ReplicationLink link : links) {
      link.awaitCaughtUp(primary, timeout);
    }
  }
}
