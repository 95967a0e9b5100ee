package org.binlogrelay.server;

import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.binlogrelay.protocol.gtid.MysqlGtid;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.FileMetadata;

/**
 * The source UUIDs whose GTIDs a MySQL replica may not have more of than the relay stores. A MySQL
 * primary checks its own {@code server_uuid} ({@code ER_REPLICA_HAS_MORE_GTIDS_THAN_SOURCE}); a
 * relay has no transactions of its own, so it checks the UUID of the newest transaction it stored:
 * its primary's, or the origin's in a chain of relays. Empty for a store without transactions. Only
 * MySQL dumps ask ({@code MysqlDumpFlavor}, through {@code ServingConfig#checkedSources}): MariaDB
 * has no such check, and a MariaDB store is never asked. Stateless; reads the store's metadata only
 * (thread-safe, no I/O).
 */
final class PrimarySources {

  private PrimarySources() {}

  static Set<UUID> of(BinlogStore store) {
    List<FileMetadata> files = store.files();
    for (int i = files.size() - 1; i >= 0; i--) {
      String last = files.get(i).lastGtid();
      if (last != null && !last.isEmpty()) {
        return Set.of(MysqlGtid.parse(last).sourceId());
      }
    }
    return Set.of();
  }
}
