package org.binlogrelay.storage.lookup;

import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.MariadbGtid;
import org.binlogrelay.protocol.gtid.MariadbGtidSet;
import org.binlogrelay.storage.BinlogSource;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.read.MariadbGtidFilter;
import org.binlogrelay.storage.read.MariadbStartException;
import org.binlogrelay.storage.read.MariadbStartException.Kind;

/**
 * Finds where a MariaDB replica connecting with a GTID position ({@code @slave_connect_state})
 * starts, as MariaDB 10.11's {@code init_binlog_sender} does ({@code sql/sql_repl.cc}):
 *
 * <ol>
 *   <li>{@code check_slave_start_position}: each GTID of the position must be in the binlog state
 *       ({@link BinlogSource#executedGtids()}, {@code @@gtid_binlog_state}): the same domain and
 *       server with a sequence number at least as high. A domain the state does not have at all is
 *       accepted and checked again when its first group arrives. Otherwise {@link
 *       MariadbStart.Refused}: {@link Kind#DIVERGED} if the domain has a higher sequence number
 *       (from any server), else {@link Kind#NOT_IN_BINLOG}; with {@code gtid_ignore_duplicates}, a
 *       GTID ahead of the domain is accepted instead;
 *   <li>{@code gtid_find_binlog_file}: from the newest file back, the first file whose start state
 *       (GTID_LIST) {@code contains_all_slave_gtid}: every domain of the list is in the position,
 *       and where the list has the position's server in that domain with a higher or equal sequence
 *       number, it is equal and is the domain's last entry. {@link MariadbStart.Purged} if no file
 *       qualifies. Domains whose GTID is that last entry start at the file's beginning: nothing is
 *       skipped for them.
 * </ol>
 *
 * Only metadata is used to choose the file; then one scan of it finds the first group to send (and
 * a strict mode hole there, reported as {@link MariadbStart.Refused} with {@link Kind#HOLE}).
 *
 * <p>Thread-safe.
 */
public final class MariadbStartLookup {
  private final BinlogSource store;

  public MariadbStartLookup(BinlogSource store) {
    if (store.flavor() != GtidFlavor.MARIADB) {
      throw new IllegalArgumentException("MariaDB GTID lookup on a " + store.flavor() + " store");
    }
    this.store = store;
  }

  /**
   * @param position the replica's position, one GTID per domain ({@link
   *     MariadbGtidSet#parsePosition})
   * @param strict the replica's {@code gtid_strict_mode}
   * @param ignoreDuplicates the replica's {@code gtid_ignore_duplicates}
   */
  public MariadbStart find(MariadbGtidSet position, boolean strict, boolean ignoreDuplicates)
      throws IOException {
    Objects.requireNonNull(position, "position");
    List<FileMetadata> files = store.files();
    if (files.isEmpty()) {
      return new MariadbStart.NothingStored();
    }
    MariadbGtidSet state = (MariadbGtidSet) store.executedGtids();
    Set<Long> emptyDomains = new HashSet<>();
    for (MariadbGtid wanted : position.positions()) {
      if (inState(state, wanted)) {
        continue;
      }
      Optional<MariadbGtid> newest = state.newest(wanted.domainId());
      if (newest.isEmpty()) {
        emptyDomains.add(wanted.domainId());
        continue;
      }
      boolean higher = Long.compareUnsigned(newest.get().seqNo(), wanted.seqNo()) >= 0;
      if (ignoreDuplicates && !higher) {
        continue;
      }
      return new MariadbStart.Refused(higher ? Kind.DIVERGED : Kind.NOT_IN_BINLOG, wanted);
    }
    for (int i = files.size() - 1; i >= 0; i--) {
      FileMetadata meta = files.get(i);
      List<MariadbGtid> list = ((MariadbGtidSet) meta.gtidsAtStart()).gtids();
      if (containsAll(position, list)) {
        Map<Long, MariadbGtid> waitFor = new TreeMap<>();
        for (MariadbGtid wanted : position.positions()) {
          if (!list.contains(wanted)) {
            waitFor.put(wanted.domainId(), wanted);
          }
        }
        MariadbGtidFilter filter =
            new MariadbGtidFilter(
                waitFor, emptyDomains, strict, () -> (MariadbGtidSet) store.executedGtids());
        try {
          FirstToSend.Result scan = FirstToSend.find(store, meta.name(), filter);
          return new MariadbStart.Found(Position.startOf(meta.name()), filter, scan.position());
        } catch (MariadbStartException e) {
          return new MariadbStart.Refused(e.kind(), e.gtid());
        }
      }
    }
    return new MariadbStart.Purged(position.copy());
  }

  /**
   * MariaDB's {@code find_in_binlog_state}: the same domain and server, sequence number at least as
   * high.
   */
  private static boolean inState(MariadbGtidSet state, MariadbGtid wanted) {
    for (MariadbGtid g : state.gtids()) {
      if (g.domainId() == wanted.domainId() && g.serverId() == wanted.serverId()) {
        return Long.compareUnsigned(g.seqNo(), wanted.seqNo()) >= 0;
      }
    }
    return false;
  }

  /**
   * MariaDB's {@code contains_all_slave_gtid} over a GTID_LIST whose domains each end with their
   * newest GTID.
   */
  private static boolean containsAll(MariadbGtidSet position, List<MariadbGtid> list) {
    for (int i = 0; i < list.size(); i++) {
      MariadbGtid listed = list.get(i);
      Optional<MariadbGtid> wanted = position.newest(listed.domainId());
      if (wanted.isEmpty()) {
        return false;
      }
      MariadbGtid w = wanted.get();
      if (w.serverId() == listed.serverId()
          && Long.compareUnsigned(w.seqNo(), listed.seqNo()) <= 0) {
        if (w.seqNo() != listed.seqNo()) {
          return false;
        }
        boolean lastOfDomain =
            i + 1 == list.size() || list.get(i + 1).domainId() != listed.domainId();
        if (!lastOfDomain) {
          return false;
        }
      }
    }
    return true;
  }
}
