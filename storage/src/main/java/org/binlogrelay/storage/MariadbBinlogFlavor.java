package org.binlogrelay.storage;

import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.event.FormatDescriptionEvent;
import org.binlogrelay.protocol.event.GtidListEvent;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.protocol.gtid.MariadbGtid;
import org.binlogrelay.protocol.gtid.MariadbGtidSet;
import org.binlogrelay.protocol.txn.TransactionBoundaries;

/**
 * MariaDB: binlog states ({@code domain-server-seq} per domain and server), GTID_LIST at each
 * file's start.
 */
final class MariadbBinlogFlavor implements BinlogFlavor {
  static final MariadbBinlogFlavor INSTANCE = new MariadbBinlogFlavor();

  private MariadbBinlogFlavor() {}

  @Override
  public GtidFlavor gtidFlavor() {
    return GtidFlavor.MARIADB;
  }

  @Override
  public GtidSet emptyGtids() {
    return MariadbGtidSet.empty();
  }

  @Override
  public boolean wrote(FormatDescriptionEvent format) {
    return format.isMariadb();
  }

  @Override
  public GtidSet parseGtids(String text) {
    return MariadbGtidSet.parse(text);
  }

  @Override
  public String formatGtids(GtidSet set) {
    return set.toString();
  }

  @Override
  public void add(GtidSet set, Object gtid) {
    ((MariadbGtidSet) set).add((MariadbGtid) gtid);
  }

  @Override
  public TransactionBoundaries<?> newBoundaries(long start, FormatDescriptionEvent format) {
    return TransactionBoundaries.of(gtidFlavor(), start, format);
  }

  @Override
  public GtidSet headerSet(BinlogEvent event, FormatDescriptionEvent format) {
    return event.type() == EventType.GTID_LIST
        ? GtidListEvent.parse(event, format).gtidSet()
        : null;
  }

  /**
   * No: {@code MYSQL_BIN_LOG::do_binlog_recovery} ({@code sql/log.cc}) reads the crashed file with
   * the flag set to recover it and opens a new file; nothing writes the old file's flag again.
   */
  @Override
  public boolean clearsInUseAfterCrash() {
    return false;
  }
}
