package org.binlogrelay.storage.read.testing;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.binlogrelay.protocol.bytes.ByteWriter;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.event.MariadbGtidEvent;
import org.binlogrelay.protocol.event.RotateEvent;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.protocol.gtid.MariadbGtid;
import org.binlogrelay.protocol.gtid.MariadbGtidSet;
import org.binlogrelay.protocol.gtid.MysqlGtid;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;

/**
 * Test side: a synthetic dump stream of small binlog files with correct sizes, log_pos and CRC32s,
 * for tests that need many files or chosen timestamps. The FORMAT_DESCRIPTION body is the fixture
 * server's own; other bodies are laid out as the servers write them (only the fields the trackers
 * read are meaningful). Transactions: MySQL {@code GTID, BEGIN, INSERT, XID}; MariaDB {@code GTID,
 * INSERT, XID}. Not thread-safe.
 */
public final class SyntheticBinlog {
  public static final UUID SOURCE = UUID.fromString("3b1e7c52-0000-4000-8000-00000000f001");

  private final GtidFlavor flavor;
  private final byte[] formatBody;
  private final List<BinlogEvent> pending = new ArrayList<>();
  private final GtidSet gtids;
  private String file;
  private long position;
  private long timestamp = 1_795_000_000L;
  private long serverId = 1;
  private long nextGno = 1;

  private SyntheticBinlog(GtidFlavor flavor, SourceFiles fixture) {
    this.flavor = flavor;
    byte[] first = fixture.bytes(fixture.files.get(0));
    int size = (int) EventHeader.parse(first, 4).eventSize();
    this.formatBody = Arrays.copyOfRange(first, 4 + EventHeader.SIZE, 4 + size - 4);
    this.gtids = flavor == GtidFlavor.MYSQL ? MysqlGtidSet.empty() : MariadbGtidSet.empty();
  }

  public static SyntheticBinlog mysql() {
    return new SyntheticBinlog(GtidFlavor.MYSQL, SourceFiles.mysql());
  }

  public static SyntheticBinlog mariadb() {
    return new SyntheticBinlog(GtidFlavor.MARIADB, SourceFiles.mariadb());
  }

  public GtidFlavor flavor() {
    return flavor;
  }

  /** The timestamp (epoch seconds) of the events made from now on. */
  public SyntheticBinlog at(long epochSeconds) {
    timestamp = epochSeconds;
    return this;
  }

  public SyntheticBinlog serverId(long id) {
    serverId = id;
    return this;
  }

  /** The GTID set after everything made so far (a copy). */
  public GtidSet gtids() {
    return gtids.copy();
  }

  public String file() {
    return file;
  }

  public long position() {
    return position;
  }

  /** The artificial ROTATE, FORMAT_DESCRIPTION and PREVIOUS_GTIDS / GTID_LIST of a new file. */
  public SyntheticBinlog startFile(String name) {
    file = name;
    position = 4;
    pending.add(SourceFiles.artificialRotate(name, true));
    event(EventType.FORMAT_DESCRIPTION, formatBody);
    if (flavor == GtidFlavor.MYSQL) {
      event(EventType.PREVIOUS_GTIDS, ((MysqlGtidSet) gtids).encode());
    } else {
      List<MariadbGtid> list = ((MariadbGtidSet) gtids).gtids();
      ByteWriter w = new ByteWriter().u32(list.size());
      for (MariadbGtid g : list) {
        w.u32(g.domainId()).u32(g.serverId()).u64(g.seqNo());
      }
      event(EventType.GTID_LIST, w.toByteArray());
    }
    return this;
  }

  /** Ends the current file with a ROTATE to {@code next} and starts {@code next}. */
  public SyntheticBinlog rotateTo(String next) {
    event(EventType.ROTATE, new RotateEvent(4, next).encodeBody());
    return startFile(next);
  }

  /** A MySQL transaction with the next number of {@link #SOURCE}, or a MariaDB one in domain 0. */
  public SyntheticBinlog transaction() {
    if (flavor == GtidFlavor.MYSQL) {
      return mysqlTransaction(new MysqlGtid(SOURCE, nextGno++));
    }
    return mariadbTransaction(0, nextGno++);
  }

  public SyntheticBinlog transactions(int n) {
    for (int i = 0; i < n; i++) {
      transaction();
    }
    return this;
  }

  public SyntheticBinlog mysqlTransaction(MysqlGtid gtid) {
    ByteWriter w =
        new ByteWriter()
            .u8(0)
            .u64be(gtid.sourceId().getMostSignificantBits())
            .u64be(gtid.sourceId().getLeastSignificantBits())
            .u64(gtid.gno())
            .u8(2)
            .u64(0)
            .u64(1);
    event(EventType.GTID, w.toByteArray());
    event(EventType.QUERY, query("BEGIN"));
    event(EventType.QUERY, query("INSERT INTO t VALUES (" + gtid.gno() + ")"));
    event(EventType.XID, new ByteWriter().u64(gtid.gno()).toByteArray());
    ((MysqlGtidSet) gtids).add(gtid);
    return this;
  }

  /** A MariaDB event group {@code domain-serverId-seqNo}: GTID (BEGIN implied), INSERT, XID. */
  public SyntheticBinlog mariadbTransaction(long domain, long seqNo) {
    ByteWriter w = new ByteWriter().u64(seqNo).u32(domain).u8(MariadbGtidEvent.FL_TRANSACTIONAL);
    while (w.size() < MariadbGtidEvent.POST_HEADER_LENGTH) {
      w.u8(0);
    }
    event(EventType.MARIADB_GTID, w.toByteArray());
    event(EventType.QUERY, query("INSERT INTO t VALUES (" + seqNo + ")"));
    event(EventType.XID, new ByteWriter().u64(seqNo).toByteArray());
    ((MariadbGtidSet) gtids).add(new MariadbGtid(domain, serverId, seqNo));
    return this;
  }

  /** The events made since the last call. */
  public List<BinlogEvent> drain() {
    List<BinlogEvent> out = new ArrayList<>(pending);
    pending.clear();
    return out;
  }

  private static byte[] query(String sql) {
    byte[] db = "fx".getBytes(StandardCharsets.US_ASCII);
    return new ByteWriter()
        .u32(7)
        .u32(0)
        .u8(db.length)
        .u16(0)
        .u16(0)
        .bytes(db)
        .u8(0)
        .bytes(sql.getBytes(StandardCharsets.UTF_8))
        .toByteArray();
  }

  private void event(EventType type, byte[] body) {
    int size = EventHeader.SIZE + body.length + 4;
    EventHeader h = new EventHeader(timestamp, type.code(), serverId, size, position + size, 0);
    pending.add(BinlogEvent.assemble(h, body, true));
    position += size;
  }
}
