package org.binlogrelay.protocol.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongFunction;
import java.util.stream.Stream;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.testing.AllocationBudget;
import org.binlogrelay.protocol.testing.EventRepair;
import org.binlogrelay.protocol.testing.FixtureBinlogs;
import org.binlogrelay.protocol.txn.MariadbTransactionBoundaries;
import org.binlogrelay.protocol.txn.MysqlTransactionBoundaries;
import org.binlogrelay.protocol.txn.Transaction;
import org.binlogrelay.protocol.txn.TransactionBoundaries;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fuzz targets for the binlog event layer (docs/fuzzing.md): {@link BinlogFileParser} and {@link
 * BinlogEventDecoder}, every typed view ({@link TypedViews}), and both flavours' transaction
 * boundary trackers. Seeded with the real servers' binlogs (docs/fixtures.md).
 *
 * <p>Checksums stop almost every mutation at the CRC32, so the first input byte can ask the target
 * to repair what a random edit breaks before parsing: bit 0 recomputes each event's CRC32 and bit 1
 * sets each log_pos to the event's end (walking the events by their event_size fields). The fuzzer
 * then reaches the bodies, the FORMAT_DESCRIPTION handling and the trackers' state machines with
 * events that are well framed but whose content and order are arbitrary.
 */
class BinlogEventFuzzTest {
  private static final int FIX_CHECKSUMS = 1;
  private static final int FIX_LOG_POS = 2;
  private static final int SMALL_LIMIT = 4;
  private static final int MAX_EVENT_SIZE = 16 << 20;
  private static final int SMALL_MAX_EVENT_SIZE = 512;

  /** Seeds stay below the targets' max_len (scripts/fuzz.sh). */
  private static final int MAX_SEED = 60_000;

  static Stream<Arguments> binlogFile() {
    List<byte[]> seeds = new ArrayList<>();
    for (String dir : List.of(FixtureBinlogs.MYSQL, FixtureBinlogs.MARIADB)) {
      for (String name : FixtureBinlogs.fileNames(dir)) {
        byte[] file = prefix(FixtureBinlogs.bytes(dir, name), MAX_SEED);
        seeds.add(withFlags(0, file));
        seeds.add(withFlags(FIX_CHECKSUMS | FIX_LOG_POS, file));
      }
    }
    return seeds.stream().map(s -> arguments((Object) s));
  }

  /**
   * A binlog file. Contract: the parser returns events back to back from offset 4, each within the
   * size limit, or stops with a {@link CorruptEventException} (nothing else) at the offset of the
   * first bad event, which is also its position; each event's typed view parses or throws {@link
   * ProtocolException}; each tracker accepts the event or throws {@link ProtocolException}, keeps
   * its last boundary at or before its position, and reports transactions that tile the stream
   * between boundaries; and the file cut at a tracker's last boundary reads again without error and
   * ends at a boundary with the same transactions (what crash recovery keeps). Allocation is
   * bounded by the file's length.
   */
  @MethodSource
  @FuzzTest
  void binlogFile(byte[] input) {
    if (input.length == 0) {
      return;
    }
    int flags = input[0] & 0xff;
    byte[] file = Arrays.copyOfRange(input, 1, input.length);
    EventRepair.repair(file, 4, (flags & FIX_CHECKSUMS) != 0, (flags & FIX_LOG_POS) != 0);
    int limit = (flags & SMALL_LIMIT) != 0 ? SMALL_MAX_EVENT_SIZE : MAX_EVENT_SIZE;
    Walk mysql =
        AllocationBudget.of(2 << 20, 64, file.length)
            .check(
                "walking the file",
                () -> Walk.of(file, file.length, limit, MysqlTransactionBoundaries::new));
    Walk mariadb = Walk.of(file, file.length, limit, MariadbTransactionBoundaries::new);
    assertThat(mariadb.events).isEqualTo(mysql.events);
    for (Walk walk : List.of(mysql, mariadb)) {
      long boundary = walk.tracker.lastBoundary();
      if (walk.trackerFailed || boundary <= 4 || boundary > file.length) {
        continue;
      }
      Walk kept = Walk.of(file, (int) boundary, limit, walk.trackers);
      assertThat(kept.parserError).as("the file cut at its last boundary %d", boundary).isNull();
      assertThat(kept.trackerFailed).isFalse();
      assertThat(kept.tracker.atBoundary()).isTrue();
      assertThat(kept.tracker.lastBoundary()).isEqualTo(boundary);
      assertThat(kept.transactions).isEqualTo(walk.transactionsUpTo(boundary));
    }
  }

  /** One walk through a file with the parser, the typed views and one tracker. */
  private static final class Walk {
    final LongFunction<TransactionBoundaries<?>> trackers;
    final TransactionBoundaries<?> tracker;
    final List<Long> events = new ArrayList<>();
    final List<Transaction<?>> transactions = new ArrayList<>();
    CorruptEventException parserError;
    boolean trackerFailed;

    private Walk(LongFunction<TransactionBoundaries<?>> trackers) {
      this.trackers = trackers;
      this.tracker = trackers.apply(4);
    }

    static Walk of(
        byte[] file, int length, int limit, LongFunction<TransactionBoundaries<?>> trackers) {
      Walk walk = new Walk(trackers);
      BinlogFileParser parser;
      try {
        parser = new BinlogFileParser(file, length, limit);
      } catch (CorruptEventException e) {
        assertThat(e.offset()).isZero();
        walk.parserError = e;
        return walk;
      }
      long previousEnd = 4;
      while (parser.hasNext()) {
        BinlogEvent event;
        try {
          event = parser.next();
        } catch (CorruptEventException e) {
          assertThat(e.offset())
              .as("offset of %s", e.getMessage())
              .isEqualTo(parser.position())
              .isEqualTo(previousEnd);
          assertThat(e.reason()).isNotNull();
          walk.parserError = e;
          break;
        }
        assertThat((long) event.offset()).isEqualTo(previousEnd);
        assertThat((long) event.length())
            .isEqualTo(event.header().eventSize())
            .isLessThanOrEqualTo(limit);
        assertThat(event.end()).isLessThanOrEqualTo(length);
        previousEnd = event.end();
        walk.events.add((long) event.offset());
        FormatDescriptionEvent format = parser.format();
        assertThat(format).isNotNull();
        typedView(event, format);
        walk.feed(event);
      }
      assertThat(parser.position())
          .isEqualTo(walk.parserError == null ? length : (int) walk.parserError.offset());
      return walk;
    }

    private void feed(BinlogEvent event) {
      if (trackerFailed) {
        return;
      }
      long boundaryBefore = tracker.lastBoundary();
      Transaction<?> done;
      try {
        done = tracker.accept(event, event.offset());
      } catch (ProtocolException refused) {
        trackerFailed = true;
        assertThat(tracker.atBoundary()).isFalse();
        return;
      }
      assertThat(tracker.position()).isEqualTo(event.end());
      assertThat(tracker.lastBoundary()).isBetween(boundaryBefore, tracker.position());
      if (tracker.atBoundary()) {
        assertThat(tracker.lastBoundary()).isEqualTo(tracker.position());
      }
      if (done != null) {
        assertThat(done.end()).isEqualTo(event.end());
        assertThat(done.start()).isEqualTo(boundaryBefore);
        assertThat(tracker.atBoundary()).isTrue();
        transactions.add(done);
      }
    }

    List<Transaction<?>> transactionsUpTo(long boundary) {
      return transactions.stream().filter(t -> t.end() <= boundary).toList();
    }
  }

  static Stream<Arguments> streamEvent() {
    List<byte[]> seeds = new ArrayList<>();
    for (String dir : List.of(FixtureBinlogs.MYSQL, FixtureBinlogs.MARIADB)) {
      byte[] file = FixtureBinlogs.bytes(dir, FixtureBinlogs.fileNames(dir).get(1));
      ByteArrayOutputStream stream = new ByteArrayOutputStream();
      stream.write(FIX_CHECKSUMS);
      for (byte[] event : FixtureBinlogs.events(file)) {
        if (stream.size() + event.length + 3 > 8000) {
          break;
        }
        byte[] packet = new byte[event.length + 1];
        System.arraycopy(event, 0, packet, 1, event.length);
        stream.write(packet.length);
        stream.write(packet.length >>> 8);
        stream.writeBytes(packet);
      }
      seeds.add(stream.toByteArray());
    }
    return seeds.stream().map(s -> arguments((Object) s));
  }

  /**
   * A replication stream as the relay reads it from a primary: packets of {@code 0x00} + one event,
   * decoded one by one with {@link BinlogEventDecoder#decode} (whose length comes from the packet,
   * not from the event). The input: u8 flags (bit 0 repairs each event's CRC32, bit 3 starts with
   * CRC32 assumed, as after checksum negotiation), then packets, each {@code u16 length, payload}.
   * Contract: each event decodes or is refused with {@link CorruptEventException}, its typed view
   * parses or throws {@link ProtocolException}, and the decoder's format changes only at a
   * FORMAT_DESCRIPTION event.
   */
  @MethodSource
  @FuzzTest
  void streamEvent(byte[] input) {
    if (input.length == 0) {
      return;
    }
    int flags = input[0] & 0xff;
    ChecksumAlgorithm initial = (flags & 8) != 0 ? ChecksumAlgorithm.CRC32 : ChecksumAlgorithm.OFF;
    BinlogEventDecoder decoder =
        new BinlogEventDecoder(
            initial, (flags & SMALL_LIMIT) != 0 ? SMALL_MAX_EVENT_SIZE : MAX_EVENT_SIZE);
    int at = 1;
    while (at + 2 <= input.length) {
      int n = Math.min((input[at] & 0xff) | (input[at + 1] & 0xff) << 8, input.length - at - 2);
      byte[] packet = Arrays.copyOfRange(input, at + 2, at + 2 + n);
      at += 2 + n;
      if (packet.length == 0) {
        continue;
      }
      if ((flags & FIX_CHECKSUMS) != 0
          && packet.length >= 1 + EventHeader.SIZE + BinlogChecksum.SIZE) {
        BinlogChecksum.patch(packet, 1, packet.length - 1);
      }
      FormatDescriptionEvent before = decoder.format();
      BinlogEvent event;
      try {
        event =
            AllocationBudget.of(1 << 20, 16, packet.length)
                .check(
                    "BinlogEventDecoder.decode",
                    () -> decoder.decode(packet, 1, packet.length - 1));
      } catch (CorruptEventException refused) {
        assertThat(refused.offset()).isEqualTo(1);
        assertThat(decoder.format()).isSameAs(before);
        continue;
      }
      assertThat(event.offset()).isEqualTo(1);
      assertThat(event.length()).isEqualTo(packet.length - 1);
      if (event.type() != EventType.FORMAT_DESCRIPTION) {
        assertThat(decoder.format()).isSameAs(before);
      } else {
        assertThat(decoder.formatSeen()).isTrue();
      }
      typedView(event, decoder.format());
    }
  }

  // ---- shared ----

  /**
   * The typed view of {@code event}: parsed, or refused with a ProtocolException; bounded
   * allocation.
   */
  private static void typedView(BinlogEvent event, FormatDescriptionEvent format) {
    Object view;
    try {
      view =
          AllocationBudget.of(1 << 20, 64, event.length())
              .check(
                  "typed view of " + event.header().typeName(),
                  () -> TypedViews.parse(event, format));
    } catch (ProtocolException refused) {
      assertThat(refused.getMessage()).isNotBlank();
      return;
    }
    if (view instanceof TransactionPayloadEvent payload) {
      assertThat(payload.payloadOffset() + payload.payloadSize())
          .isLessThanOrEqualTo(event.bodyEnd() - event.offset());
      assertThat(payload.payload(event)).hasSize((int) payload.payloadSize());
    }
    if (view instanceof GtidListEvent list) {
      assertThat(list.gtidSet().gtids().size()).isLessThanOrEqualTo(list.gtids().size());
    }
  }

  private static byte[] prefix(byte[] file, int max) {
    int p = 4;
    while (p + EventHeader.SIZE <= file.length) {
      int size = (int) EventHeader.parse(file, p).eventSize();
      if (p + size > max) {
        break;
      }
      p += size;
    }
    return Arrays.copyOf(file, p);
  }

  private static byte[] withFlags(int flags, byte[] file) {
    byte[] out = new byte[file.length + 1];
    out[0] = (byte) flags;
    System.arraycopy(file, 0, out, 1, file.length);
    return out;
  }
}
