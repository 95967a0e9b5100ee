package org.binlogrelay.storage.pitr;

import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.FormatDescriptionEvent;
import org.binlogrelay.protocol.event.GtidEvent;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.protocol.gtid.MariadbGtid;
import org.binlogrelay.protocol.gtid.MariadbGtidSet;
import org.binlogrelay.protocol.gtid.MysqlGtid;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;

/**
 * What a stop point needs from each flavour: parsing a GTID, testing and adding one to a set, and
 * the commit time a transaction's GTID event carries (MySQL's {@code immediate_commit_timestamp};
 * MariaDB's GTID event has none). Chosen once from the store's flavour. Stateless.
 */
enum PitrFlavor {
  MYSQL {
    @Override
    Object parseGtid(String text) {
      return MysqlGtid.parse(text);
    }

    @Override
    boolean contains(GtidSet set, Object gtid) {
      return gtid != null && ((MysqlGtidSet) set).contains((MysqlGtid) gtid);
    }

    @Override
    void add(GtidSet set, Object gtid) {
      if (gtid != null) {
        ((MysqlGtidSet) set).add((MysqlGtid) gtid);
      }
    }

    @Override
    long commitMicros(BinlogEvent event, FormatDescriptionEvent format) {
      return event.type().isMysqlGtid()
          ? GtidEvent.parse(event, format).immediateCommitTimestamp()
          : 0;
    }

    @Override
    String missing(GtidSet stored, GtidSet asked) {
      return ((MysqlGtidSet) asked).subtract((MysqlGtidSet) stored).toString();
    }
  },

  MARIADB {
    @Override
    Object parseGtid(String text) {
      return MariadbGtid.parse(text);
    }

    @Override
    boolean contains(GtidSet set, Object gtid) {
      return gtid != null && ((MariadbGtidSet) set).contains((MariadbGtid) gtid);
    }

    @Override
    void add(GtidSet set, Object gtid) {
      if (gtid != null) {
        ((MariadbGtidSet) set).add((MariadbGtid) gtid);
      }
    }

    @Override
    long commitMicros(BinlogEvent event, FormatDescriptionEvent format) {
      return 0;
    }

    @Override
    String missing(GtidSet stored, GtidSet asked) {
      StringBuilder out = new StringBuilder();
      for (MariadbGtid gtid : ((MariadbGtidSet) asked).gtids()) {
        if (!((MariadbGtidSet) stored).contains(gtid)) {
          out.append(out.isEmpty() ? "" : ",").append(gtid);
        }
      }
      return out.toString();
    }
  };

  static PitrFlavor of(GtidFlavor flavor) {
    return flavor == GtidFlavor.MYSQL ? MYSQL : MARIADB;
  }

  /** The flavour's GTID object for {@code text}; IllegalArgumentException if malformed. */
  abstract Object parseGtid(String text);

  /** Whether {@code set} has {@code gtid} (false for {@code null}, an anonymous transaction). */
  abstract boolean contains(GtidSet set, Object gtid);

  /** Adds {@code gtid} to {@code set}; nothing for {@code null}. */
  abstract void add(GtidSet set, Object gtid);

  /**
   * The commit time in microseconds carried by {@code event} if it is a transaction's GTID event
   * that has one, else 0.
   */
  abstract long commitMicros(BinlogEvent event, FormatDescriptionEvent format);

  /** The part of {@code asked} that {@code stored} does not have, as text. */
  abstract String missing(GtidSet stored, GtidSet asked);
}
