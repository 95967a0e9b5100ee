package org.binlogrelay.storage.read;

import java.util.Objects;
import org.binlogrelay.protocol.gtid.MysqlGtid;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.storage.FileMetadata;

/**
 * MySQL auto-position: skip every transaction whose GTID is in the replica's set ({@code
 * COM_BINLOG_DUMP_GTID}), whole, wherever it comes, as MySQL's {@code Binlog_sender::skip_event}
 * does. Anonymous transactions are never skipped.
 *
 * <p>When the filter can be switched off: a closed file whose own GTIDs (its end set minus its
 * start set) do not meet the replica's set needs no filtering. In a file still being written, the
 * filter follows which of the replica's GTIDs are still to come: those not in the file's start set
 * (PREVIOUS_GTIDS) and not skipped since; once none is left, no later transaction can be in the
 * replica's set (a GTID is logged once). This uses only what the reader itself has seen, so it
 * cannot race with the writer. A replica whose set holds GTIDs the binlog never gets (its own
 * errant transactions, another source's) keeps the filter on in the open file.
 *
 * <p>Not thread-safe; the set is copied in.
 */
public final class MysqlGtidFilter implements TransactionFilter {
  private final MysqlGtidSet replica;

  /** The replica's GTIDs not yet seen in the binlog before the reader's position. */
  private MysqlGtidSet toCome;

  public MysqlGtidFilter(MysqlGtidSet replica) {
    this.replica = Objects.requireNonNull(replica, "replica").copy();
    this.toCome = this.replica.copy();
  }

  private MysqlGtidFilter(MysqlGtidFilter other) {
    this.replica = other.replica.copy();
    this.toCome = other.toCome.copy();
  }

  @Override
  public boolean skip(StoredTransaction transaction) {
    if (transaction.gtid() instanceof MysqlGtid gtid && replica.contains(gtid)) {
      toCome.remove(gtid);
      return true;
    }
    return false;
  }

  @Override
  public boolean startFile(FileMetadata file) {
    if (file == null) {
      toCome = replica.copy();
      return !replica.isEmpty();
    }
    MysqlGtidSet before = (MysqlGtidSet) file.gtidsAtStart();
    toCome = replica.subtract(before);
    if (file.closed()) {
      MysqlGtidSet own = ((MysqlGtidSet) file.gtidsAtEnd()).subtract(before);
      return !own.intersection(replica).isEmpty();
    }
    return !toCome.isEmpty();
  }

  @Override
  public boolean mayMatch() {
    return !toCome.isEmpty();
  }

  @Override
  public MysqlGtidFilter copy() {
    return new MysqlGtidFilter(this);
  }

  /** The replica's set (a copy). */
  public MysqlGtidSet replicaGtids() {
    return replica.copy();
  }

  @Override
  public String toString() {
    return "skip GTIDs in " + replica.toString().replace("\n", "");
  }
}
