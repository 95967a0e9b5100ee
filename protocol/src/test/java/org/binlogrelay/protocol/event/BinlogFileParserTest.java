package org.binlogrelay.protocol.event;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.NoSuchElementException;
import org.binlogrelay.protocol.bytes.LittleEndian;
import org.binlogrelay.protocol.event.CorruptEventException.Reason;
import org.binlogrelay.protocol.event.SampleEvents.Sample;
import org.junit.jupiter.api.Test;

class BinlogFileParserTest {
  private static final int MAX = 1 << 20;

  /** A MySQL file with every MySQL sample type, and the start offset of each event. */
  private static byte[] mysqlFile(List<Integer> offsets) {
    EventBuilder b = EventBuilder.mysqlWithFde();
    offsets.add(4);
    for (Sample s : SampleEvents.all()) {
      if (s.name().startsWith("real") || s.name().startsWith("FDE") || s.format().isMariadb()) {
        continue;
      }
      offsets.add((int) b.position());
      byte[] e = s.event();
      b.add(
          e[EventHeader.TYPE_OFFSET] & 0xff,
          0,
          Arrays.copyOfRange(e, EventHeader.SIZE, e.length - 4));
    }
    return b.file();
  }

  @Test
  void walksAWholeFile() {
    List<Integer> offsets = new ArrayList<>();
    byte[] file = mysqlFile(offsets);
    BinlogFileParser parser = new BinlogFileParser(file, MAX);
    assertNull(parser.format());
    List<Integer> seen = new ArrayList<>();
    while (parser.hasNext()) {
      BinlogEvent e = parser.next();
      seen.add(e.offset());
      assertTrue(e.hasChecksum());
      TypedViews.parse(e, parser.format());
    }
    assertEquals(offsets, seen);
    assertEquals(file.length, parser.position());
    assertEquals(List.of(), parser.logPosMismatches());
    assertEquals(EventBuilder.MYSQL_VERSION, parser.format().serverVersion());
    assertThrows(NoSuchElementException.class, parser::next);
  }

  @Test
  void everyTruncationStopsAtTheStartOfThePartialEvent() {
    List<Integer> offsets = new ArrayList<>();
    byte[] file = mysqlFile(offsets);
    for (int cut = 4; cut < file.length; cut++) {
      BinlogFileParser parser = new BinlogFileParser(file, cut, MAX);
      int good = 0;
      CorruptEventException failure = null;
      try {
        while (parser.hasNext()) {
          parser.next();
          good++;
        }
      } catch (CorruptEventException e) {
        failure = e;
      }
      int boundaryIndex = offsets.indexOf(cut);
      if (boundaryIndex >= 0) {
        assertNull(failure, "cut at event boundary " + cut);
        assertEquals(boundaryIndex, good);
      } else {
        int partial = lastAtOrBefore(offsets, cut);
        assertEquals(Reason.TRUNCATED, failure.reason(), "cut " + cut);
        assertEquals(partial, failure.offset(), "cut " + cut);
        assertEquals(partial, parser.position(), "valid up to the partial event");
        assertTrue(failure.getMessage().contains("offset " + partial), failure.getMessage());
      }
    }
  }

  private static int lastAtOrBefore(List<Integer> offsets, int cut) {
    int best = 0;
    for (int o : offsets) {
      if (o <= cut) {
        best = o;
      }
    }
    return best;
  }

  @Test
  void corruptByteStopsAtThatEvent() {
    List<Integer> offsets = new ArrayList<>();
    byte[] file = mysqlFile(offsets);
    int victim = offsets.get(3);
    file[victim + 25] ^= 0x40;
    BinlogFileParser parser = new BinlogFileParser(file, MAX);
    for (int i = 0; i < 3; i++) {
      parser.next();
    }
    CorruptEventException e = assertThrows(CorruptEventException.class, parser::next);
    assertEquals(Reason.CHECKSUM_MISMATCH, e.reason());
    assertEquals(victim, e.offset());
    assertEquals(victim, parser.position());
  }

  @Test
  void logPosMismatchesAreReported() {
    EventBuilder b = EventBuilder.mysqlWithFde();
    byte[] xid = b.add(EventType.XID, new XidEvent(1).encodeBody());
    byte[] wrong = b.assemble(EventType.XID.code(), 0, new XidEvent(2).encodeBody(), true);
    byte[] file = b.file();
    EventHeader h = EventHeader.parse(wrong, 0);
    byte[] patched =
        BinlogEvent.assemble(h.withLogPos(12345), Arrays.copyOfRange(wrong, 19, 27), true)
            .toByteArray();
    byte[] all = Arrays.copyOf(file, file.length + patched.length);
    System.arraycopy(patched, 0, all, file.length, patched.length);
    BinlogFileParser parser = new BinlogFileParser(all, MAX);
    parser.forEachRemaining(e -> {});
    assertEquals(
        List.of(new LogPosMismatch(file.length, "XID", all.length, 12345)),
        parser.logPosMismatches());
    assertEquals(31, xid.length);
  }

  @Test
  void oversizedEventIsRefusedBeforeReadingIt() {
    byte[] file = EventBuilder.mysqlWithFde().file();
    byte[] huge = Arrays.copyOf(file, file.length + 19);
    huge[file.length + EventHeader.TYPE_OFFSET] = (byte) EventType.QUERY.code();
    LittleEndian.put32(huge, file.length + EventHeader.EVENT_SIZE_OFFSET, 0xfffffff0L);
    BinlogFileParser parser = new BinlogFileParser(huge, Integer.MAX_VALUE);
    parser.next();
    CorruptEventException e = assertThrows(CorruptEventException.class, parser::next);
    assertEquals(Reason.TOO_LARGE, e.reason());
    BinlogFileParser small = new BinlogFileParser(file, 100);
    assertEquals(Reason.TOO_LARGE, assertThrows(CorruptEventException.class, small::next).reason());
  }

  @Test
  void eventSmallerThanItsHeaderIsMalformed() {
    byte[] file = EventBuilder.mysqlWithFde().file();
    byte[] bad = Arrays.copyOf(file, file.length + 19);
    bad[file.length + EventHeader.EVENT_SIZE_OFFSET] = 5;
    BinlogFileParser parser = new BinlogFileParser(bad, MAX);
    parser.next();
    assertEquals(
        Reason.MALFORMED, assertThrows(CorruptEventException.class, parser::next).reason());
  }

  @Test
  void magicAndFirstEventAreChecked() {
    assertEquals(
        Reason.TRUNCATED,
        assertThrows(
                CorruptEventException.class,
                () -> new BinlogFileParser(new byte[] {(byte) 0xfe, 'b'}, MAX))
            .reason());
    CorruptEventException magic =
        assertThrows(
            CorruptEventException.class,
            () -> new BinlogFileParser("GIF89a".getBytes(StandardCharsets.US_ASCII), MAX));
    assertEquals(Reason.MALFORMED, magic.reason());
    assertTrue(magic.getMessage().contains("not a binlog file"), magic.getMessage());
    assertFalse(new BinlogFileParser(BinlogFileParser.MAGIC, MAX).hasNext());

    EventBuilder b = EventBuilder.mysql();
    b.add(EventType.XID, new XidEvent(1).encodeBody());
    CorruptEventException first =
        assertThrows(CorruptEventException.class, new BinlogFileParser(b.file(), MAX)::next);
    assertTrue(
        first.getMessage().contains("must start with a FORMAT_DESCRIPTION"), first.getMessage());
  }

  @Test
  void fileWithoutChecksums() {
    EventBuilder b = EventBuilder.mariadb();
    b.addFormatDescription(ChecksumAlgorithm.OFF);
    byte[] gtid =
        b.add(
            EventType.MARIADB_GTID,
            EventBodies.mariadbGtid(
                new MariadbGtidEvent(3, 0, 1, 0x0c, 0, 0, 0, 0, new byte[0], 0, 0, 0)));
    b.add(EventType.XID, new XidEvent(9).encodeBody());
    BinlogFileParser parser = new BinlogFileParser(b.file(), MAX);
    assertFalse(parser.next().hasChecksum());
    BinlogEvent g = parser.next();
    assertFalse(g.hasChecksum());
    assertArrayEquals(gtid, g.toByteArray());
    assertEquals(3, MariadbGtidEvent.parse(g, parser.format()).seqNo());
    assertEquals(9, XidEvent.parse(parser.next(), parser.format()).xid());
    assertFalse(parser.hasNext());
  }

  @Test
  void aLaterFormatDescriptionChangesTheChecksumSetting() {
    EventBuilder b = EventBuilder.mysqlWithFde();
    b.add(EventType.XID, new XidEvent(1).encodeBody());
    b.addFormatDescription(ChecksumAlgorithm.OFF);
    b.add(EventType.XID, new XidEvent(2).encodeBody());
    BinlogFileParser parser = new BinlogFileParser(b.file(), MAX);
    List<Boolean> checksums = new ArrayList<>();
    parser.forEachRemaining(e -> checksums.add(e.hasChecksum()));
    assertEquals(List.of(true, true, false, false), checksums);
  }
}
