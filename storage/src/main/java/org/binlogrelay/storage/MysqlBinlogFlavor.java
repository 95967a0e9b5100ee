package org.binlogrelay.storage;

import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.event.FormatDescriptionEvent;
import org.binlogrelay.protocol.event.PreviousGtidsEvent;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.protocol.gtid.MysqlGtid;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.protocol.txn.TransactionBoundaries;

/** MySQL: {@code uuid[:tag]:intervals} sets, PREVIOUS_GTIDS at each file's start. Stateless. */
final class MysqlBinlogFlavor implements BinlogFlavor {
  static final MysqlBinlogFlavor INSTANCE = new MysqlBinlogFlavor();

  private MysqlBinlogFlavor() {}

  @Override
  public GtidFlavor gtidFlavor() {
    return GtidFlavor.MYSQL;
  }

  @Override
  public GtidSet emptyGtids() {
    return MysqlGtidSet.empty();
  }

  @Override
  public boolean wrote(FormatDescriptionEvent format) {
    return !format.isMariadb();
  }

  @Override
  public GtidSet parseGtids(String text) {
    return MysqlGtidSet.parse(text);
  }

  @Override
  public String formatGtids(GtidSet set) {
    return set.toString().replace("\n", "");
  }

  @Override
  public void add(GtidSet set, Object gtid) {
    ((MysqlGtidSet) set).add((MysqlGtid) gtid);
  }

  @Override
  public TransactionBoundaries<?> newBoundaries(long start, FormatDescriptionEvent format) {
    return TransactionBoundaries.of(gtidFlavor(), start, format);
  }

  @Override
  public GtidSet headerSet(BinlogEvent event, FormatDescriptionEvent format) {
    return event.type() == EventType.PREVIOUS_GTIDS
        ? PreviousGtidsEvent.parse(event, format).gtids()
        : null;
  }

  /**
   * Yes: at start-up after a crash, {@code MYSQL_BIN_LOG::open_binlog} recovers the last file and
   * clears its flag ({@code truncate_update_log_file(..., true)}, {@code sql/binlog.cc}) before
   * opening the next one.
   */
  @Override
  public boolean clearsInUseAfterCrash() {
    return true;
  }
}
