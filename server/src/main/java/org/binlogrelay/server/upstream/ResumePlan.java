package org.binlogrelay.server.upstream;

import java.io.IOException;
import java.util.Optional;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.Position;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where and how one connection continues the store, decided once the primary is known:
 *
 * <ul>
 *   <li>an empty store starts where {@link UpstreamConfig#start()} says, by position, keeping the
 *       primary's files ({@link PrimaryFiles});
 *   <li>a store whose last file this primary wrote (the server_id in its FORMAT_DESCRIPTION is the
 *       primary's) continues by position, keeping the primary's files: the normal case, every
 *       stored byte the primary's;
 *   <li>any other store (its last file was written by another server, or by the relay itself after
 *       a switch) continues by GTID: the primary sends what the store's GTID set lacks, and {@link
 *       RelayFiles} writes it into files of the relay's naming;
 *   <li>so does a store whose last file this primary wrote but no longer lists in {@code SHOW
 *       BINARY LOGS}: it was restarted with another {@code --log-bin} base name (its new index
 *       starts afresh, its GTIDs stay), or the file was purged. A dump by position would only get
 *       error 1236; by GTID the primary sends what the store lacks from its new files, or refuses
 *       with 1236 if it purged some of it. Not when the store's transactions have no GTIDs, nor
 *       when the primary does not answer {@code SHOW BINARY LOGS} (REPLICATION CLIENT missing):
 *       then the dump by position is asked for, as before.
 * </ul>
 *
 * Before either continuation of a non-empty store, the primary's executed GTIDs must contain the
 * store's: a primary that lacks transactions the relay already stored (and may already have served)
 * has another history, and continuing from it would interleave two histories. That is a {@link
 * FatalUpstreamException}.
 *
 * <p>Immutable once decided; used on the connection's thread.
 */
final class ResumePlan {
  private static final Logger LOG = LoggerFactory.getLogger(ResumePlan.class);

  private final Position dumpFrom;
  private final GtidSet gtids;
  private final Position storeEnd;
  private final StreamMapping mapping;

  private ResumePlan(Position dumpFrom, GtidSet gtids, Position storeEnd, StreamMapping mapping) {
    this.dumpFrom = dumpFrom;
    this.gtids = gtids;
    this.storeEnd = storeEnd;
    this.mapping = mapping;
  }

  /**
   * Decides, on the store's writer thread (it calls {@link BinlogStore#startStream()}).
   *
   * @param relayServerId the relay's server_id (marks the files it names)
   * @param storedGtids the store's GTIDs once it has made readable everything up to a position
   */
  static ResumePlan decide(
      BinlogStore store,
      PrimaryConnection connection,
      PrimaryFlavor flavor,
      long primaryServerId,
      long relayServerId,
      StartPosition start,
      StartResolver resolver,
      RelayFiles.StoredGtids storedGtids)
      throws IOException {
    Optional<Position> resume;
    try {
      resume = store.startStream();
    } catch (IOException e) {
      throw new FatalUpstreamException(
          "binlog store " + store.directory() + " failed to start a stream: " + e.getMessage(), e);
    }
    if (resume.isEmpty()) {
      return new ResumePlan(resolver.resolve(start), null, null, PrimaryFiles.INSTANCE);
    }
    Optional<StoreTail> read = StoreTail.read(store, resume.get());
    if (read.isEmpty()) {
      // only an empty store starts in the primary's naming, so the file it was fetching is the
      // primary's
      return new ResumePlan(resume.get(), null, null, PrimaryFiles.INSTANCE);
    }
    StoreTail tail = read.get();
    GtidSet stored = storedGtids.upTo(tail.end());
    requireHistory(
        connection.address(), primaryServerId, flavor, flavor.executedGtids(connection), stored);
    boolean gtidsUsable = !(stored.isEmpty() && holdsTransactions(store));
    if (tail.writtenBy() == primaryServerId) {
      String file = resume.get().file();
      if (!gtidsUsable || primaryLists(connection, file)) {
        return new ResumePlan(resume.get(), null, tail.end(), PrimaryFiles.INSTANCE);
      }
      LOG.warn(
          "upstream {}: the primary (server_id {}) wrote the stored files but no longer lists {} (SHOW BINARY"
              + " LOGS): restarted with another --log-bin base name, or the file was purged. Continuing by GTID, after"
              + " the store's {}, into files of the relay's naming after {}",
          connection.address(),
          primaryServerId,
          file,
          stored,
          tail.end());
    }
    if (!gtidsUsable) {
      throw new FatalUpstreamException(
          "primary "
              + connection.address()
              + " (server_id "
              + primaryServerId
              + ") did not write the stored files (their last file is server_id "
              + tail.writtenBy()
              + "'s), so the"
              + " relay would continue by GTID, but the store's transactions have no GTIDs (gtid_mode OFF): it cannot"
              + " tell what this primary must send. Point the relay at the server that wrote the store, or start a new"
              + " store");
    }
    return new ResumePlan(
        null, stored, tail.end(), new RelayFiles(tail, relayServerId, flavor, storedGtids));
  }

  /**
   * Refuses a primary whose executed GTIDs lack some of the store's.
   *
   * @throws FatalUpstreamException naming what it lacks
   */
  static void requireHistory(
      String address,
      long primaryServerId,
      PrimaryFlavor flavor,
      GtidSet executed,
      GtidSet stored) {
    if (executed.containsAll(stored)) {
      return;
    }
    throw new FatalUpstreamException(
        "primary "
            + address
            + " (server_id "
            + primaryServerId
            + ") lacks transactions"
            + " the relay has stored: "
            + flavor.missing(executed, stored)
            + ". Its history is not the store's: it is"
            + " behind (a replica that has not received them yet) or diverged (a reset binlog, a failover to a server"
            + " that missed them, a crash that lost committed transactions). The relay does not continue from a server"
            + " that lacks what it may already have served; point it at a server whose executed GTIDs contain the"
            + " store's ("
            + stored
            + "), or start a new store");
  }

  /**
   * Whether the primary's {@code SHOW BINARY LOGS} lists {@code file}; true (the dump by position
   * decides) if it cannot be asked.
   */
  private static boolean primaryLists(PrimaryConnection connection, String file)
      throws IOException {
    ResultRows logs;
    try {
      logs = connection.query("SHOW BINARY LOGS");
    } catch (PrimaryErrorException e) {
      LOG.debug(
          "upstream {}: SHOW BINARY LOGS refused ({}); resuming by position",
          connection.address(),
          e.getMessage());
      return true;
    }
    for (int i = 0; i < logs.rows().size(); i++) {
      if (file.equals(logs.value(i, "Log_name"))) {
        return true;
      }
    }
    return false;
  }

  private static boolean holdsTransactions(BinlogStore store) {
    return store.files().stream().anyMatch(f -> f.transactions() > 0);
  }

  /** Sends the dump command (the answer is the stream). */
  void requestDump(PrimaryConnection connection, PrimaryFlavor flavor, long relayServerId)
      throws IOException {
    if (gtids != null) {
      flavor.requestResumeDump(connection, gtids, relayServerId);
    } else {
      flavor.requestDump(connection, dumpFrom, relayServerId);
    }
  }

  /** True if the store continues by GTID into files of the relay's naming. */
  boolean byGtid() {
    return gtids != null;
  }

  /** Where the store ends before this connection; {@code null} for an empty store. */
  Position storeEnd() {
    return storeEnd;
  }

  /** The primary's file and offset the dump starts from; {@code null} when resuming by GTID. */
  Position dumpFrom() {
    return dumpFrom;
  }

  StreamMapping mapping() {
    return mapping;
  }

  @Override
  public String toString() {
    return gtids != null ? "GTIDs after " + gtids + " into " + mapping : dumpFrom.toString();
  }
}
