package org.binlogrelay.storage.read;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.binlogrelay.protocol.gtid.MariadbGtid;
import org.binlogrelay.protocol.gtid.MariadbGtidSet;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.read.MariadbStartException.Kind;

/**
 * MariaDB GTID connect: per replication domain, skip every event group until the replica's own GTID
 * of that domain has gone by, then send everything of the domain; domains the replica did not name
 * are sent from the start. These are the rules of MariaDB 10.11's {@code send_event_to_slave}
 * ({@code sql/sql_repl.cc}):
 *
 * <ul>
 *   <li>a group of a domain still waited for is skipped if its server id differs from the replica's
 *       GTID's or its sequence number is at most the replica's;
 *   <li>the first group with the replica's server id and a sequence number at least the replica's
 *       ends the wait for the domain (that group itself is skipped only if it is the replica's GTID
 *       exactly);
 *   <li>in GTID strict mode, reaching the domain with a higher sequence number than the replica's
 *       (the replica's GTID is a hole in the binlog) is {@link Kind#HOLE};
 *   <li>a domain the binlog did not have at connect time is re-checked when its first group
 *       arrives: the binlog state must then hold the replica's GTID, else {@link
 *       Kind#NOT_IN_BINLOG} or {@link Kind#DIVERGED}.
 * </ul>
 *
 * <p>Not thread-safe.
 */
public final class MariadbGtidFilter implements TransactionFilter {

  /**
   * A domain waited for: the replica's GTID in it, and whether the binlog had the domain at connect
   * time.
   */
  private record Target(MariadbGtid gtid, boolean emptyDomain) {}

  private final TreeMap<Long, Target> targets = new TreeMap<>();
  private final boolean strict;
  private final Supplier<MariadbGtidSet> binlogState;

  /**
   * @param waitFor per domain, the replica's GTID to pass (domains to send from the start are left
   *     out)
   * @param emptyDomains domains of {@code waitFor} the binlog state did not have at connect time
   * @param strict the replica's {@code gtid_strict_mode} ({@code @slave_gtid_strict_mode})
   * @param binlogState the store's current binlog state ({@code BinlogStore.executedGtids()})
   */
  public MariadbGtidFilter(
      Map<Long, MariadbGtid> waitFor,
      Set<Long> emptyDomains,
      boolean strict,
      Supplier<MariadbGtidSet> binlogState) {
    for (Map.Entry<Long, MariadbGtid> e : waitFor.entrySet()) {
      targets.put(e.getKey(), new Target(e.getValue(), emptyDomains.contains(e.getKey())));
    }
    this.strict = strict;
    this.binlogState = Objects.requireNonNull(binlogState, "binlogState");
  }

  private MariadbGtidFilter(MariadbGtidFilter other) {
    targets.putAll(other.targets);
    strict = other.strict;
    binlogState = other.binlogState;
  }

  @Override
  public boolean skip(StoredTransaction transaction) {
    if (!(transaction.gtid() instanceof MariadbGtid gtid)) {
      return false;
    }
    Target target = targets.get(gtid.domainId());
    if (target == null) {
      return false;
    }
    MariadbGtid wanted = target.gtid();
    if (target.emptyDomain()) {
      checkInBinlog(wanted);
      targets.put(gtid.domainId(), new Target(wanted, false));
    }
    boolean sameServer = gtid.serverId() == wanted.serverId();
    int order = Long.compareUnsigned(gtid.seqNo(), wanted.seqNo());
    boolean skip = !sameServer || order <= 0;
    if (sameServer && order >= 0) {
      if (strict && order > 0) {
        throw MariadbStartException.of(Kind.HOLE, wanted);
      }
      targets.remove(gtid.domainId());
    }
    return skip;
  }

  private void checkInBinlog(MariadbGtid wanted) {
    MariadbGtidSet state = binlogState.get();
    Optional<MariadbGtid> same =
        state.gtids().stream()
            .filter(g -> g.domainId() == wanted.domainId() && g.serverId() == wanted.serverId())
            .findFirst();
    if (same.isPresent() && Long.compareUnsigned(same.get().seqNo(), wanted.seqNo()) >= 0) {
      return;
    }
    Optional<MariadbGtid> newest = state.newest(wanted.domainId());
    boolean higher =
        newest.isPresent() && Long.compareUnsigned(newest.get().seqNo(), wanted.seqNo()) >= 0;
    throw MariadbStartException.of(higher ? Kind.DIVERGED : Kind.NOT_IN_BINLOG, wanted);
  }

  @Override
  public boolean startFile(FileMetadata file) {
    return !targets.isEmpty();
  }

  @Override
  public boolean mayMatch() {
    return !targets.isEmpty();
  }

  @Override
  public MariadbGtidFilter copy() {
    return new MariadbGtidFilter(this);
  }

  /** The domains still waited for, with the replica's GTID in each. */
  public Map<Long, MariadbGtid> waitingFor() {
    Map<Long, MariadbGtid> out = new TreeMap<>();
    targets.forEach((domain, target) -> out.put(domain, target.gtid()));
    return out;
  }

  @Override
  public String toString() {
    return "skip MariaDB groups until " + waitingFor().values() + (strict ? " (strict)" : "");
  }
}
