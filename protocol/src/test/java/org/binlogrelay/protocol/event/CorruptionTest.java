package org.binlogrelay.protocol.event;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.Arrays;
import java.util.List;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.event.SampleEvents.Sample;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Truncation at every byte, every bit flipped: only {@link ProtocolException}s, never silent
 * acceptance.
 */
class CorruptionTest {

  static List<Sample> samples() {
    return SampleEvents.all();
  }

  @ParameterizedTest
  @MethodSource("samples")
  void sampleParsesWhole(Sample s) {
    BinlogEvent e =
        new BinlogEventDecoder(ChecksumAlgorithm.CRC32, 1 << 20)
            .decode(s.event(), 0, s.event().length);
    assertNotNull(TypedViews.parse(e, s.format()), s.name());
  }

  @ParameterizedTest
  @MethodSource("samples")
  void everyRawTruncationIsACorruptEvent(Sample s) {
    for (int cut = 0; cut < s.event().length; cut++) {
      byte[] shorter = Arrays.copyOf(s.event(), cut);
      BinlogEventDecoder decoder = new BinlogEventDecoder(ChecksumAlgorithm.CRC32, 1 << 20);
      int n = cut;
      CorruptEventException e =
          assertThrows(
              CorruptEventException.class,
              () -> decoder.decode(shorter, 0, n),
              s + " cut at " + cut);
      assertEquals(0, e.offset());
      assertThrows(
          ProtocolException.class,
          () -> BinlogEvent.wrap(shorter, 0, n, true),
          s + " cut at " + cut);
    }
  }

  /**
   * The body cut at every length, header and checksum made consistent again: the typed view either
   * parses (optional trailing fields) or throws a ProtocolException: never IndexOutOfBounds,
   * NegativeArraySize or OOM.
   */
  @ParameterizedTest
  @MethodSource("samples")
  void everyBodyTruncationParsesOrThrowsProtocolException(Sample s) {
    BinlogEvent whole = BinlogEvent.wrap(s.event(), true);
    int bodyLength = whole.bodyEnd() - EventHeader.SIZE;
    int refused = 0;
    for (int cut = 0; cut < bodyLength; cut++) {
      byte[] body = Arrays.copyOfRange(s.event(), EventHeader.SIZE, EventHeader.SIZE + cut);
      BinlogEvent shorter = BinlogEvent.assemble(whole.header(), body, true);
      try {
        TypedViews.parse(shorter, s.format());
      } catch (ProtocolException expected) {
        refused++;
        assertTrue(expected.getMessage() != null && !expected.getMessage().isEmpty());
      } catch (RuntimeException other) {
        fail(s + " body cut at " + cut + " threw " + other, other);
      }
    }
    if (whole.type() != EventType.STOP && whole.type() != EventType.ANNOTATE_ROWS) {
      assertTrue(refused > 0, s + ": no truncation was refused");
    }
  }

  @ParameterizedTest
  @MethodSource("samples")
  void everyBitFlipIsCaught(Sample s) {
    byte[] event = s.event();
    boolean fde = (event[EventHeader.TYPE_OFFSET] & 0xff) == EventType.FORMAT_DESCRIPTION.code();
    for (int bit = 0; bit < event.length * 8; bit++) {
      int at = bit / 8;
      int mask = 1 << (bit % 8);
      if (fde && at == EventHeader.FLAGS_OFFSET && mask == EventHeader.LOG_EVENT_BINLOG_IN_USE_F) {
        continue; // excluded from the checksum by design
      }
      byte[] flipped = event.clone();
      flipped[at] ^= (byte) mask;
      BinlogEventDecoder decoder = new BinlogEventDecoder(ChecksumAlgorithm.CRC32, 1 << 20);
      assertThrows(
          CorruptEventException.class,
          () -> decoder.decode(flipped, 0, flipped.length),
          s + ": flip of bit " + (bit % 8) + " of byte " + at + " went unnoticed");
    }
  }

  @Test
  void formatDescriptionWithChecksumOffStillHasItsOwnCrcVerified() {
    byte[] off = RealEventBytes.MYSQL_FDE_CHECKSUM_OFF.clone();
    new BinlogEventDecoder(ChecksumAlgorithm.OFF, 1000).decode(off, 0, off.length);
    off[30] ^= 4;
    CorruptEventException e =
        assertThrows(
            CorruptEventException.class,
            () -> new BinlogEventDecoder(ChecksumAlgorithm.OFF, 1000).decode(off, 0, off.length));
    assertEquals(CorruptEventException.Reason.CHECKSUM_MISMATCH, e.reason());
    // A writer that leaves the room zero is accepted.
    Arrays.fill(off, off.length - 4, off.length, (byte) 0);
    new BinlogEventDecoder(ChecksumAlgorithm.OFF, 1000).decode(off, 0, off.length);
  }

  @Test
  void serversThatPredateChecksumsAreRefusedByTheDecoder() {
    byte[] old =
        EventBuilder.custom("5.5.62-log", new byte[27])
            .addFormatDescription(ChecksumAlgorithm.UNDEFINED);
    CorruptEventException e =
        assertThrows(
            CorruptEventException.class,
            () -> new BinlogEventDecoder(ChecksumAlgorithm.OFF, 1000).decode(old, 0, old.length));
    assertEquals(CorruptEventException.Reason.MALFORMED, e.reason());
    assertTrue(e.getMessage().contains("predates binlog checksums"), e.getMessage());
  }

  @Test
  void checksumComputeAndPatch() {
    byte[] event = RealEventBytes.MYSQL_XID.clone();
    long stored = BinlogChecksum.stored(event, 0, event.length);
    assertEquals(stored, BinlogChecksum.compute(event, 0, event.length));
    event[20] ^= 1;
    assertTrue(!BinlogChecksum.verify(event, 0, event.length));
    BinlogChecksum.patch(event, 0, event.length);
    assertTrue(BinlogChecksum.verify(event, 0, event.length));
    assertThrows(ProtocolException.class, () -> BinlogChecksum.compute(new byte[10], 0, 10));
  }

  @Test
  void corruptMessagesNameTheEventAndOffset() {
    byte[] event = RealEventBytes.MYSQL_GTID.clone();
    event[30] ^= 0x10;
    CorruptEventException e =
        assertThrows(
            CorruptEventException.class,
            () ->
                new BinlogEventDecoder(ChecksumAlgorithm.CRC32, 1000)
                    .decode(event, 0, event.length));
    assertEquals(CorruptEventException.Reason.CHECKSUM_MISMATCH, e.reason());
    assertTrue(
        e.getMessage().startsWith("GTID event at offset 0 (79 bytes): stored CRC32 0x"),
        e.getMessage());
    CorruptEventException big =
        assertThrows(
            CorruptEventException.class,
            () ->
                new BinlogEventDecoder(ChecksumAlgorithm.CRC32, 50)
                    .decode(RealEventBytes.MYSQL_GTID, 0, 79));
    assertEquals(CorruptEventException.Reason.TOO_LARGE, big.reason());
  }
}
