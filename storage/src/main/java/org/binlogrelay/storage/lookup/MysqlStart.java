package org.binlogrelay.storage.lookup;

import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.read.MysqlGtidFilter;

/**
 * Where a MySQL replica connecting with {@code COM_BINLOG_DUMP_GTID} starts, or why it cannot.
 * Immutable.
 */
public sealed interface MysqlStart {

  /**
   * Start reading at {@code start} (offset 4 of the start file) with {@code filter}, which skips
   * the transactions the replica has.
   *
   * @param start offset 4 of the newest file whose PREVIOUS_GTIDS the replica's set contains
   * @param filter skips every transaction in the replica's set (pass it in the reader's options)
   * @param firstTransactionSkipped the start file's first transaction is in the replica's set:
   *     MySQL then sends the file's FORMAT_DESCRIPTION with log_pos and created set to 0 ({@code
   *     m_gtid_clear_fd_created_flag})
   * @param firstToSend the first transaction of the start file the replica lacks, or the file's
   *     readable end
   */
  record Found(
      Position start, MysqlGtidFilter filter, boolean firstTransactionSkipped, Position firstToSend)
      implements MysqlStart {}

  /**
   * The replica lacks transactions that are no longer stored: ER_SOURCE_HAS_PURGED_REQUIRED_GTIDS,
   * sent as error 1236 with "Cannot replicate because the source purged required binary logs.
   * Replicate the missing transactions from elsewhere, or provision a new replica from backup.
   * Consider increasing the source's binary log expiration period. The GTID set sent by the replica
   * is '%s', and the missing transactions are '%s'" (the sets as MySQL prints them, groups joined
   * by ",\n").
   *
   * @param replica the replica's set
   * @param missing purged GTIDs the replica lacks ({@code purgedGtids() - replica})
   */
  record Purged(MysqlGtidSet replica, MysqlGtidSet missing) implements MysqlStart {}

  /**
   * The replica has transactions of a checked source UUID that the store has not:
   * ER_REPLICA_HAS_MORE_GTIDS_ THAN_SOURCE, sent as error 1236 with "Replica has more GTIDs than
   * the source has, using the source's SERVER_UUID. This may indicate that the the last binary log
   * file was truncated or lost, e.g., after a power failure when sync_binlog != 1. The source may
   * have rolled back transactions that were already replicated to the replica. Replicate any
   * transactions that source has rolled back from replica to source, and/or commit empty
   * transactions on source to account for transactions that have been committed on source but are
   * not included in GTID_EXECUTED." (sic, "the the"). A relay behind its primary sees this for a
   * replica that moved from the primary to the relay: the server may wait for the readable boundary
   * to move and look up again before refusing.
   *
   * @param replica the replica's set
   * @param extra the replica's GTIDs of the checked sources that the store lacks
   */
  record Diverged(MysqlGtidSet replica, MysqlGtidSet extra) implements MysqlStart {}

  /**
   * The store holds no file yet: nothing to compare with; the replica can wait for the first file.
   */
  record NothingStored() implements MysqlStart {}
}
