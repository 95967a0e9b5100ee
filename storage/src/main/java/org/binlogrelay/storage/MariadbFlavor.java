package org.binlogrelay.storage;

import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.event.FormatDescriptionEvent;
import org.binlogrelay.protocol.event.GtidListEvent;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.protocol.gtid.MariadbGtid;
import org.binlogrelay.protocol.gtid.MariadbGtidSet;
import org.binlogrelay.protocol.txn.MariadbTransactionBoundaries;
import org.binlogrelay.protocol.txn.TransactionBoundaries;

/** MariaDB: binlog states ({@code domain-server-seq} per domain and server), GTID_LIST at each file's start. */
final class MariadbFlavor implements BinlogFlavor {
  static final MariadbFlavor INSTANCE = new MariadbFlavor();

  private MariadbFlavor() {}

  @Override
  public GtidFlavor gtidFlavor() {
    return GtidFlavor.MARIADB;
  }

  @Override
  public GtidSet emptyGtids() {
    return MariadbGtidSet.empty();
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
  public FileTracker newTracker(long start, FormatDescriptionEvent format, GtidSet gtids) {
    return new Tracker(start, format, (MariadbGtidSet) gtids.copy());
  }

  private static final class Tracker extends FileTracker {
    private final MariadbTransactionBoundaries boundaries;
    private MariadbGtidSet gtids;

    Tracker(long start, FormatDescriptionEvent format, MariadbGtidSet gtids) {
      super(format);
      this.boundaries = format == null ? new MariadbTransactionBoundaries(start)
          : new MariadbTransactionBoundaries(start, format);
      this.gtids = gtids;
    }

    @Override
    GtidSet gtids() {
      return gtids;
    }

    @Override
    TransactionBoundaries<?> boundaries() {
      return boundaries;
    }

    @Override
    GtidSet headerSet(BinlogEvent event, FormatDescriptionEvent format) {
      return event.type() == EventType.GTID_LIST ? GtidListEvent.parse(event, format).gtidSet() : null;
    }

    @Override
    void replaceGtids(GtidSet set) {
      gtids = (MariadbGtidSet) set.copy();
    }

    @Override
    void addGtid(Object gtid) {
      gtids.add((MariadbGtid) gtid);
    }
  }
}
