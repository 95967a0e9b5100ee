package org.binlogrelay.storage.read.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Properties;
import java.util.TreeSet;
import org.binlogrelay.protocol.event.BinlogChecksum;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.BinlogFileParser;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.event.FormatDescriptionEvent;
import org.binlogrelay.protocol.event.RotateEvent;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.txn.MariadbTransactionBoundaries;
import org.binlogrelay.protocol.txn.MysqlTransactionBoundaries;
import org.binlogrelay.protocol.txn.Transaction;
import org.binlogrelay.protocol.txn.TransactionBoundaries;

/**
 * Test side: the binlog files of a real server (the protocol module's fixtures, {@code
 * fixtures/<dir>/...} on the test classpath) with an account of them made with protocol classes
 * only: every event's offset, the transaction boundaries and the transactions of each file. {@link
 * #dumpStream()} replays them as a primary's dump thread sends them, for {@code
 * BinlogStore.append}.
 */
public final class SourceFiles {
  public static final int MAX_EVENT_SIZE = 16 << 20;

  /** One transaction of the source, in stream order. */
  public record Tx(String file, long start, long end, Object gtid) {}

  public final String directory;
  public final GtidFlavor flavor;
  public final List<String> files;
  public final Properties expected = new Properties();
  private final Map<String, byte[]> bytes = new LinkedHashMap<>();
  private final Map<String, NavigableSet<Long>> boundaries = new LinkedHashMap<>();
  private final Map<String, NavigableSet<Long>> eventStarts = new LinkedHashMap<>();
  private final List<Tx> transactions = new ArrayList<>();

  private SourceFiles(String directory) {
    this.directory = directory;
    try (InputStream in = resource("expected.properties")) {
      expected.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    flavor = expected.getProperty("flavor").equals("mysql") ? GtidFlavor.MYSQL : GtidFlavor.MARIADB;
    files = List.of(expected.getProperty("files").split(","));
    for (String name : files) {
      try (InputStream in = resource(name)) {
        bytes.put(name, in.readAllBytes());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      walk(name);
    }
  }

  public static SourceFiles mysql() {
    return new SourceFiles("mysql-9.7");
  }

  public static SourceFiles mariadb() {
    return new SourceFiles("mariadb-10.11");
  }

  /** MariaDB 11.8 at its defaults: the events inside a transaction carry log_pos 0. */
  public static SourceFiles mariadb118() {
    return new SourceFiles("mariadb-11.8");
  }

  /** Every fixture: MySQL 9.7, MariaDB 10.11 and 11.8. */
  public static List<SourceFiles> all() {
    return List.of(mysql(), mariadb(), mariadb118());
  }

  private InputStream resource(String name) {
    InputStream in = SourceFiles.class.getResourceAsStream("/fixtures/" + directory + "/" + name);
    if (in == null) {
      throw new IllegalStateException(
          "fixture " + directory + "/" + name + " missing from the test classpath");
    }
    return in;
  }

  private void walk(String name) {
    byte[] file = bytes.get(name);
    BinlogFileParser parser = new BinlogFileParser(file, MAX_EVENT_SIZE);
    TransactionBoundaries<?> tracker =
        flavor == GtidFlavor.MYSQL
            ? new MysqlTransactionBoundaries(4)
            : new MariadbTransactionBoundaries(4);
    NavigableSet<Long> b = new TreeSet<>(List.of(4L));
    NavigableSet<Long> starts = new TreeSet<>();
    while (parser.hasNext()) {
      BinlogEvent e = parser.next();
      starts.add((long) e.offset());
      Transaction<?> t = tracker.accept(e, e.offset());
      if (t != null) {
        transactions.add(new Tx(name, t.start(), t.end(), t.gtid()));
      }
      if (tracker.atBoundary()) {
        b.add((long) e.end());
      }
    }
    boundaries.put(name, b);
    eventStarts.put(name, starts);
  }

  public byte[] bytes(String file) {
    return bytes.get(file).clone();
  }

  public String lastFile() {
    return files.get(files.size() - 1);
  }

  /** Transaction boundaries of {@code file}, 4 and its end included. */
  public NavigableSet<Long> boundaries(String file) {
    return boundaries.get(file);
  }

  /** Offsets where events of {@code file} start. */
  public NavigableSet<Long> eventStarts(String file) {
    return eventStarts.get(file);
  }

  /** Every transaction, in stream order. */
  public List<Tx> transactions() {
    return transactions;
  }

  public List<Tx> transactionsOf(String file) {
    return transactions.stream().filter(t -> t.file().equals(file)).toList();
  }

  public FormatDescriptionEvent formatOf(String file) {
    byte[] b = bytes.get(file);
    return FormatDescriptionEvent.parse(b, 4, (int) EventHeader.parse(b, 4).eventSize());
  }

  /** The events of every file as a primary sends them from the first file's start. */
  public List<BinlogEvent> dumpStream() {
    List<BinlogEvent> out = new ArrayList<>();
    for (String name : files) {
      out.addAll(dumpStreamOf(name));
    }
    return out;
  }

  /**
   * One file as the dump sends it from offset 4: artificial ROTATE, FORMAT_DESCRIPTION (in-use
   * cleared), events.
   */
  public List<BinlogEvent> dumpStreamOf(String name) {
    byte[] b = bytes.get(name);
    boolean checksum = formatOf(name).eventsHaveChecksum();
    List<BinlogEvent> out = new ArrayList<>();
    out.add(artificialRotate(name, checksum));
    int p = 4;
    while (p < b.length) {
      int size = (int) EventHeader.parse(b, p).eventSize();
      byte[] event = Arrays.copyOfRange(b, p, p + size);
      if (p == 4) {
        event[EventHeader.FLAGS_OFFSET] &= ~EventHeader.LOG_EVENT_BINLOG_IN_USE_F;
      }
      out.add(BinlogEvent.wrap(event, checksum));
      p += size;
    }
    return out;
  }

  public static BinlogEvent artificialRotate(String file, boolean checksum) {
    EventHeader h =
        new EventHeader(0, EventType.ROTATE.code(), 1, 0, 0, EventHeader.LOG_EVENT_ARTIFICIAL_F);
    return BinlogEvent.assemble(h, new RotateEvent(4, file).encodeBody(), checksum);
  }

  /**
   * True if {@code actual} equals {@code expected} except for the FORMAT_DESCRIPTION's in-use flag
   * (byte 21 of the file), which the store sets while a file is open and clears some time after it
   * is closed.
   */
  public static boolean sameBinlogBytes(byte[] actual, byte[] expected) {
    return firstDifference(actual, expected, 0) < 0;
  }

  /**
   * The index of the first byte where {@code actual} and {@code expected}, both starting at file
   * offset {@code from}, differ (the in-use flag aside), -1 if they are equal (lengths included).
   */
  public static int firstDifference(byte[] actual, byte[] expected, long from) {
    int n = Math.min(actual.length, expected.length);
    long flagAt = 4 + EventHeader.FLAGS_OFFSET;
    for (int i = 0; i < n; i++) {
      int mask = from + i == flagAt ? ~EventHeader.LOG_EVENT_BINLOG_IN_USE_F : 0xff;
      if ((actual[i] & mask) != (expected[i] & mask)) {
        return i;
      }
    }
    return actual.length == expected.length ? -1 : n;
  }

  /** A copy of {@code event} with another timestamp (CRC32 fixed). */
  public static BinlogEvent withTimestamp(BinlogEvent event, long timestamp) {
    byte[] b = event.toByteArray();
    EventHeader h = EventHeader.parse(b, 0);
    new EventHeader(timestamp, h.typeCode(), h.serverId(), h.eventSize(), h.logPos(), h.flags())
        .encodeTo(b, 0);
    if (event.hasChecksum()) {
      BinlogChecksum.patch(b, 0, b.length);
    }
    return BinlogEvent.wrap(b, event.hasChecksum());
  }
}
