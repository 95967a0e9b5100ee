package org.binlogrelay.storage;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Properties;
import java.util.TreeMap;
import org.binlogrelay.protocol.event.BinlogChecksum;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.BinlogFileParser;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.event.FormatDescriptionEvent;
import org.binlogrelay.protocol.event.GtidListEvent;
import org.binlogrelay.protocol.event.PreviousGtidsEvent;
import org.binlogrelay.protocol.event.RotateEvent;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.protocol.gtid.MariadbGtid;
import org.binlogrelay.protocol.gtid.MariadbGtidSet;
import org.binlogrelay.protocol.gtid.MysqlGtid;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.protocol.txn.MariadbTransactionBoundaries;
import org.binlogrelay.protocol.txn.MysqlTransactionBoundaries;
import org.binlogrelay.protocol.txn.Transaction;
import org.binlogrelay.protocol.txn.TransactionBoundaries;

/**
 * Test side: a real server's binlog files (the protocol module's fixtures) as the source a store
 * copies, with an independent account of them made only with protocol classes: the transaction
 * boundaries of each file and the GTID set at each one. {@link #dumpStream} replays the files as a
 * primary's dump thread sends them (artificial ROTATE, FORMAT_DESCRIPTION with the in-use flag
 * cleared, or with log_pos 0 mid-file, events, ...).
 */
final class SourceBinlog {
  static final int MAX_EVENT_SIZE = 16 << 20;

  final String directory;
  final GtidFlavor flavor;
  final List<String> files;
  final Map<String, byte[]> bytes = new LinkedHashMap<>();
  final Properties expected = new Properties();

  /** Per file: boundary offset to the GTID set there. */
  final Map<String, NavigableMap<Long, GtidSet>> boundaries = new LinkedHashMap<>();

  private SourceBinlog(String directory) {
    this.directory = directory;
    try (InputStream in = resource("expected.properties")) {
      expected.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    flavor = expected.getProperty("flavor").equals("mysql") ? GtidFlavor.MYSQL : GtidFlavor.MARIADB;
    files = Arrays.asList(expected.getProperty("files").split(","));
    GtidSet running = empty();
    for (String name : files) {
      try (InputStream in = resource(name)) {
        bytes.put(name, in.readAllBytes());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      running = walk(name, running);
    }
  }

  /** The fixture in {@code fixtures/DIRECTORY} (mysql-9.7, mariadb-10.11, mariadb-11.8). */
  static SourceBinlog of(String directory) {
    return new SourceBinlog(directory);
  }

  static SourceBinlog mysql() {
    return new SourceBinlog("mysql-9.7");
  }

  static SourceBinlog mariadb() {
    return new SourceBinlog("mariadb-10.11");
  }

  /** MariaDB 11.8 at its defaults: the events inside a transaction carry log_pos 0. */
  static SourceBinlog mariadb118() {
    return new SourceBinlog("mariadb-11.8");
  }

  /** Every fixture: MySQL 9.7, MariaDB 10.11 and 11.8. */
  static List<SourceBinlog> all() {
    return List.of(mysql(), mariadb(), mariadb118());
  }

  private InputStream resource(String name) {
    InputStream in = SourceBinlog.class.getResourceAsStream("/fixtures/" + directory + "/" + name);
    if (in == null) {
      throw new IllegalStateException(
          "fixture " + directory + "/" + name + " missing from the test classpath");
    }
    return in;
  }

  GtidSet empty() {
    return flavor == GtidFlavor.MYSQL ? MysqlGtidSet.empty() : MariadbGtidSet.empty();
  }

  /** The server's own final GTID state from expected.properties. */
  GtidSet expectedFinalGtids() {
    return flavor == GtidFlavor.MYSQL
        ? MysqlGtidSet.parse(expected.getProperty("gtid_executed"))
        : MariadbGtidSet.parse(expected.getProperty("gtid_binlog_state"));
  }

  String lastFile() {
    return files.get(files.size() - 1);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private GtidSet walk(String name, GtidSet before) {
    byte[] file = bytes.get(name);
    BinlogFileParser parser = new BinlogFileParser(file, MAX_EVENT_SIZE);
    TransactionBoundaries tracker =
        flavor == GtidFlavor.MYSQL
            ? new MysqlTransactionBoundaries(4)
            : new MariadbTransactionBoundaries(4);
    NavigableMap<Long, GtidSet> map = new TreeMap<>();
    GtidSet set = before.copy();
    map.put(4L, set.copy());
    FormatDescriptionEvent format = null;
    while (parser.hasNext()) {
      BinlogEvent e = parser.next();
      if (e.type() == EventType.FORMAT_DESCRIPTION) {
        format = FormatDescriptionEvent.parse(e);
      }
      Transaction<?> t = tracker.accept(e, e.offset());
      if (e.type() == EventType.PREVIOUS_GTIDS) {
        set = PreviousGtidsEvent.parse(e, format).gtids().copy();
      } else if (e.type() == EventType.GTID_LIST) {
        set = GtidListEvent.parse(e, format).gtidSet();
      }
      if (t != null && t.gtid() != null) {
        if (flavor == GtidFlavor.MYSQL) {
          ((MysqlGtidSet) set).add((MysqlGtid) t.gtid());
        } else {
          ((MariadbGtidSet) set).add((MariadbGtid) t.gtid());
        }
      }
      if (tracker.atBoundary()) {
        map.put((long) e.end(), set.copy());
      }
    }
    boundaries.put(name, map);
    return set;
  }

  /**
   * Transaction boundaries of {@code file} strictly after the FORMAT_DESCRIPTION... all of them, 4
   * first.
   */
  NavigableMap<Long, GtidSet> boundariesOf(String file) {
    return boundaries.get(file);
  }

  /**
   * Events of {@code file} from offset {@code from} (an event start) to its end, as views of the
   * file.
   */
  List<BinlogEvent> eventsOf(String file, long from) {
    byte[] b = bytes.get(file);
    boolean checksum = formatOf(file).eventsHaveChecksum();
    List<BinlogEvent> out = new ArrayList<>();
    int p = (int) from;
    while (p < b.length) {
      int size = (int) EventHeader.parse(b, p).eventSize();
      out.add(BinlogEvent.wrap(b, p, size, checksum));
      p += size;
    }
    return out;
  }

  FormatDescriptionEvent formatOf(String file) {
    byte[] b = bytes.get(file);
    return FormatDescriptionEvent.parse(b, 4, (int) EventHeader.parse(b, 4).eventSize());
  }

  /**
   * The dump stream a primary sends for a COM_BINLOG_DUMP at {@code start}: per file an artificial
   * ROTATE, the FORMAT_DESCRIPTION (log_pos 0 and no creation time when starting mid-file; in-use
   * flag cleared), then the events; following files from offset 4.
   */
  List<BinlogEvent> dumpStream(Position start) {
    List<BinlogEvent> out = new ArrayList<>();
    int first = files.indexOf(start.file());
    if (first < 0) {
      throw new IllegalArgumentException(start.file() + " is not a source file");
    }
    for (int i = first; i < files.size(); i++) {
      String name = files.get(i);
      long from = i == first ? start.offset() : 4;
      boolean checksum = formatOf(name).eventsHaveChecksum();
      out.add(artificialRotate(name, from, checksum));
      out.add(dumpFormat(name, from > 4));
      long eventsFrom = from > 4 ? from : 4 + EventHeader.parse(bytes.get(name), 4).eventSize();
      out.addAll(eventsOf(name, eventsFrom));
    }
    return out;
  }

  /** The file's FORMAT_DESCRIPTION as a dump thread sends it. */
  BinlogEvent dumpFormat(String file, boolean midFile) {
    byte[] b = bytes.get(file);
    int size = (int) EventHeader.parse(b, 4).eventSize();
    byte[] fde = Arrays.copyOfRange(b, 4, 4 + size);
    fde[EventHeader.FLAGS_OFFSET] &= ~EventHeader.LOG_EVENT_BINLOG_IN_USE_F;
    boolean checksum = formatOf(file).eventsHaveChecksum();
    if (midFile) {
      Arrays.fill(fde, EventHeader.LOG_POS_OFFSET, EventHeader.LOG_POS_OFFSET + 4, (byte) 0);
      Arrays.fill(fde, EventHeader.SIZE + 2 + 50, EventHeader.SIZE + 2 + 50 + 4, (byte) 0);
      if (checksum) {
        BinlogChecksum.patch(fde, 0, fde.length);
      }
    }
    return BinlogEvent.wrap(fde, checksum);
  }

  static BinlogEvent artificialRotate(String file, long position, boolean checksum) {
    EventHeader h =
        new EventHeader(0, EventType.ROTATE.code(), 1, 0, 0, EventHeader.LOG_EVENT_ARTIFICIAL_F);
    return BinlogEvent.assemble(h, new RotateEvent(position, file).encodeBody(), checksum);
  }

  static BinlogEvent heartbeat(String file, long position, boolean checksum) {
    EventHeader h = new EventHeader(0, EventType.HEARTBEAT.code(), 1, 0, position, 0);
    return BinlogEvent.assemble(h, file.getBytes(StandardCharsets.UTF_8), checksum);
  }

  /** A copy of an event with another log_pos (and a CRC32 fixed up). */
  static BinlogEvent withLogPos(BinlogEvent e, long logPos) {
    byte[] b = e.toByteArray();
    EventHeader.parse(b, 0).withLogPos(logPos).encodeTo(b, 0);
    if (e.hasChecksum()) {
      BinlogChecksum.patch(b, 0, b.length);
    }
    return BinlogEvent.wrap(b, e.hasChecksum());
  }

  /**
   * The bytes {@code file} must have in a store after {@code length} bytes were copied, the file
   * still open.
   */
  byte[] openPrefix(String file, long length) {
    byte[] b = Arrays.copyOf(bytes.get(file), (int) length);
    if (length > 4 + EventHeader.FLAGS_OFFSET) {
      b[4 + EventHeader.FLAGS_OFFSET] |= EventHeader.LOG_EVENT_BINLOG_IN_USE_F;
    }
    return b;
  }
}
