package org.binlogrelay.server.serving;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The dumps being served, and which replica each belongs to. A new dump of a replica replaces its
 * older one, as MySQL's and MariaDB's {@code kill_zombie_dump_threads} do: a replica that
 * reconnects (its old connection half dead) must not leave a second stream behind, and two replicas
 * configured with the same server_id (or UUID) are told so instead of both being served. Which
 * dumps belong to the same replica is the flavour's {@link DumpFlavor#replicaKey}; clients without
 * a key (mysqlbinlog, server_id 0) replace nothing.
 *
 * <p>Thread-safe: dumps of different connections run on different event loops.
 */
final class DumpRegistry {
  /** Why the relay ended a dump itself. */
  enum Drop {
    /** The replica stopped reading for the stall timeout. */
    STALLED,
    /** Disconnected through the admin API. */
    KICKED
  }

  private final Set<ReplicaStream> sessions = ConcurrentHashMap.newKeySet();
  private final Map<String, ReplicaStream> byReplica = new ConcurrentHashMap<>();
  private final AtomicLong stalledDrops = new AtomicLong();
  private final AtomicLong kicks = new AtomicLong();
  private final TailGroups tails = new TailGroups();

  /** Records {@code session}; returns the session of the same replica it replaces, if any. */
  Optional<ReplicaStream> admit(ReplicaStream session, Optional<String> replicaKey) {
    sessions.add(session);
    if (replicaKey.isEmpty()) {
      return Optional.empty();
    }
    ReplicaStream older = byReplica.put(replicaKey.get(), session);
    return Optional.ofNullable(older == session ? null : older);
  }

  /** Forgets {@code session} (its stream ended). */
  void remove(ReplicaStream session, Optional<String> replicaKey) {
    sessions.remove(session);
    replicaKey.ifPresent(key -> byReplica.remove(key, session));
  }

  /** The dumps being served now. */
  List<ReplicaStream> sessions() {
    return new ArrayList<>(sessions);
  }

  /** The dump of connection {@code id}, if it is being served. */
  Optional<ReplicaStream> session(long id) {
    return sessions.stream().filter(s -> s.id() == id).findFirst();
  }

  /** The shared tails of the caught-up dumps ({@link ServingConfig#sharedBatches()}). */
  TailGroups tails() {
    return tails;
  }

  void dropped(Drop why) {
    (why == Drop.STALLED ? stalledDrops : kicks).incrementAndGet();
  }

  /** Dumps ended because their replica stopped reading. */
  long stalledDrops() {
    return stalledDrops.get();
  }

  /** Dumps ended through the admin API. */
  long kicks() {
    return kicks.get();
  }
}
