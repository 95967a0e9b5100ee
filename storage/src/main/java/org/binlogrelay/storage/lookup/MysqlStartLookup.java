package org.binlogrelay.storage.lookup;

import java.io.IOException;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.storage.BinlogSource;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.read.MysqlGtidFilter;

/**
 * Finds where a MySQL replica connecting with auto-position starts, as MySQL 9's {@code
 * Binlog_sender::check_start_file} does ({@code sql/rpl_binlog_sender.cc}), in the same order:
 *
 * <ol>
 *   <li>{@link MysqlStart.Diverged} if the replica's set has GTIDs of the checked source UUIDs (all
 *       tags) that the store has not executed. MySQL checks only its own {@code server_uuid},
 *       against {@code gtid_executed} plus owned GTIDs; a relay has no transactions of its own, so
 *       the caller names the UUIDs to check (typically the primary's), or none;
 *   <li>{@link MysqlStart.Purged} if the store's purged set ({@link BinlogSource#purgedGtids()}) is
 *       not contained in the replica's set;
 *   <li>the start file: the newest file whose start set (PREVIOUS_GTIDS) the replica's set
 *       contains, as {@code MYSQL_BIN_LOG::find_first_log_not_in_gtid_set} finds it; {@link
 *       MysqlStart.Purged} if none.
 * </ol>
 *
 * Only metadata is used to choose the file; then one scan of the chosen file finds the first
 * transaction to send ({@link MysqlStart.Found#firstToSend()}).
 *
 * <p>Thread-safe.
 */
public final class MysqlStartLookup {
  private final BinlogSource store;

  public MysqlStartLookup(BinlogSource store) {
    if (store.flavor() != GtidFlavor.MYSQL) {
      throw new IllegalArgumentException("MySQL GTID lookup on a " + store.flavor() + " store");
    }
    this.store = store;
  }

  /**
   * @param replica the set the replica sent ({@code gtid_executed} plus its received GTIDs)
   * @param checkedSources source UUIDs whose GTIDs the replica must not have more of than the store
   */
  public MysqlStart find(MysqlGtidSet replica, Set<UUID> checkedSources) throws IOException {
    Objects.requireNonNull(replica, "replica");
    List<FileMetadata> files = store.files();
    if (files.isEmpty()) {
      return new MysqlStart.NothingStored();
    }
    MysqlGtidSet extra =
        ofSources(replica, checkedSources).subtract((MysqlGtidSet) store.executedGtids());
    if (!extra.isEmpty()) {
      return new MysqlStart.Diverged(replica.copy(), extra);
    }
    MysqlGtidSet purged = (MysqlGtidSet) store.purgedGtids();
    if (!replica.containsAll(purged)) {
      return new MysqlStart.Purged(replica.copy(), purged.subtract(replica));
    }
    for (int i = files.size() - 1; i >= 0; i--) {
      FileMetadata meta = files.get(i);
      if (replica.containsAll(meta.gtidsAtStart())) {
        MysqlGtidFilter filter = new MysqlGtidFilter(replica);
        FirstToSend.Result scan = FirstToSend.find(store, meta.name(), filter);
        return new MysqlStart.Found(
            Position.startOf(meta.name()), filter, scan.firstSkipped(), scan.position());
      }
    }
    MysqlGtidSet oldest = (MysqlGtidSet) files.get(0).gtidsAtStart();
    return new MysqlStart.Purged(replica.copy(), oldest.subtract(replica));
  }

  /** The part of {@code set} whose source UUID is one of {@code sources}, with every tag. */
  private static MysqlGtidSet ofSources(MysqlGtidSet set, Set<UUID> sources) {
    MysqlGtidSet out = MysqlGtidSet.empty();
    for (UUID uuid : set.sourceIds()) {
      if (sources.contains(uuid)) {
        for (String tag : set.tags(uuid)) {
          set.intervalsFor(uuid, tag)
              .forEach(iv -> out.addInterval(uuid, tag, iv.start(), iv.end()));
        }
      }
    }
    return out;
  }
}
