package org.binlogrelay.storage;

import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.event.FormatDescriptionEvent;
import org.binlogrelay.protocol.event.PreviousGtidsEvent;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.protocol.gtid.MysqlGtid;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.protocol.txn.MysqlTransactionBoundaries;
import org.binlogrelay.protocol.txn.TransactionBoundaries;

/** MySQL: {@code uuid[:tag]:intervals} sets, PREVIOUS_GTIDS at each file's start. Stateless. */
final class MysqlFlavor implements BinlogFlavor {
  static final MysqlFlavor INSTANCE = new MysqlFlavor();

  private MysqlFlavor() {}

  @Override
  public GtidFlavor gtidFlavor() {
    return GtidFlavor.MYSQL;
  }

  @Override
  public GtidSet emptyGtids() {
    return MysqlGtidSet.empty();
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
  public FileTracker newTracker(long start, FormatDescriptionEvent format, GtidSet gtids) {
    return new Tracker(start, format, (MysqlGtidSet) gtids.copy());
  }

  private static final class Tracker extends FileTracker {
    private final MysqlTransactionBoundaries boundaries;
    private MysqlGtidSet gtids;

    Tracker(long start, FormatDescriptionEvent format, MysqlGtidSet gtids) {
      super(format);
      this.boundaries = format == null ? new MysqlTransactionBoundaries(start)
          : new MysqlTransactionBoundaries(start, format);
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
      return event.type() == EventType.PREVIOUS_GTIDS ? PreviousGtidsEvent.parse(event, format).gtids() : null;
    }

    @Override
    void replaceGtids(GtidSet set) {
      gtids = (MysqlGtidSet) set.copy();
    }

    @Override
    void addGtid(Object gtid) {
      gtids.add((MysqlGtid) gtid);
    }
  }
}
