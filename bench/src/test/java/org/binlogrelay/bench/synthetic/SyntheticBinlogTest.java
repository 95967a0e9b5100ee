package org.binlogrelay.bench.synthetic;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.binlogrelay.protocol.event.BinlogChecksum;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.BinlogFileParser;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.event.GtidEvent;
import org.binlogrelay.protocol.event.PreviousGtidsEvent;
import org.binlogrelay.protocol.event.RotateEvent;
import org.junit.jupiter.api.Test;

/**
 * The synthetic primary's binlog, without a network: the stream of 2,000 transactions with a 16 KiB
 * {@code max_binlog_size}, cut into files as a replica stores them (the artificial ROTATE dropped),
 * parses as binlog files: every log_pos where the event ends, every CRC32 right, GNOs 1 to 2,000
 * without gaps in one UUID, each file's PREVIOUS_GTIDS the GTIDs of the files before it, a ROTATE
 * naming the next file.
 */
class SyntheticBinlogTest {
  private static final UUID SOURCE = UUID.fromString("5e7a0000-0000-4000-8000-00000000b1b1");

  @Test
  void theGeneratedFilesParseWithContiguousGtidsAndRightPositionsAndChecksums() throws Exception {
    RecordedTransactions recording = RecordedTransactions.builtIn();
    assertThat(recording.serverVersion()).startsWith("9.7");
    assertThat(recording.transactions()).isNotEmpty();
    SyntheticBinlog binlog = new SyntheticBinlog(recording, SOURCE, 7, "binlog", 16_384);
    List<ByteArrayOutputStream> files = new ArrayList<>();
    ByteArrayOutputStream[] current = {file(files)};
    for (byte[] e : binlog.startOfCurrentFile()) {
      storeUnlessArtificial(e, current[0]);
    }
    SyntheticBinlog.EventSink sink =
        new SyntheticBinlog.EventSink() {
          @Override
          public void transaction(byte[] events, int[] starts, long gno) {
            current[0].writeBytes(events);
          }

          @Override
          public void event(byte[] event) {
            if (isArtificialRotate(event)) {
              current[0] = file(files);
            } else {
              current[0].writeBytes(event);
            }
          }
        };
    for (int i = 0; i < 2000; i++) {
      binlog.next(1_700_000_000_000_000L + i, sink);
    }
    assertThat(files).hasSizeGreaterThan(10);
    assertThat(binlog.executedGtids()).isEqualTo(SOURCE + ":1-2000");

    long expectedGno = 1;
    for (int n = 0; n < files.size(); n++) {
      byte[] bytes = files.get(n).toByteArray();
      BinlogFileParser parser = new BinlogFileParser(bytes, 1 << 20);
      List<EventType> types = new ArrayList<>();
      while (parser.hasNext()) {
        BinlogEvent e = parser.next();
        types.add(e.type());
        assertThat(BinlogChecksum.verify(e.buffer(), e.offset(), e.length()))
            .as("CRC32 of the %s at %d of file %d", e.type(), e.offset(), n + 1)
            .isTrue();
        if (e.type() == EventType.PREVIOUS_GTIDS) {
          String before = expectedGno == 1 ? "" : SOURCE + ":1-" + (expectedGno - 1);
          assertThat(PreviousGtidsEvent.parse(e, parser.format()).gtids().toString())
              .isEqualTo(before);
        }
        if (e.type() == EventType.GTID) {
          GtidEvent g = GtidEvent.parse(e, parser.format());
          assertThat(g.gtid().toString()).isEqualTo(SOURCE + ":" + expectedGno);
          expectedGno++;
        }
        if (e.type() == EventType.ROTATE) {
          assertThat(RotateEvent.parse(e, parser.format()).nextFile())
              .isEqualTo(String.format("binlog.%06d", n + 2));
        }
      }
      assertThat(parser.logPosMismatches()).as("log_pos of file %d", n + 1).isEmpty();
      assertThat(parser.position()).isEqualTo(bytes.length);
      assertThat(types.get(0)).isEqualTo(EventType.FORMAT_DESCRIPTION);
      assertThat(types.get(1)).isEqualTo(EventType.PREVIOUS_GTIDS);
      if (n < files.size() - 1) {
        assertThat(types.get(types.size() - 1)).isEqualTo(EventType.ROTATE);
      }
    }
    assertThat(expectedGno - 1).isEqualTo(2000);
  }

  private static ByteArrayOutputStream file(List<ByteArrayOutputStream> files) {
    ByteArrayOutputStream f = new ByteArrayOutputStream();
    f.writeBytes(BinlogFileParser.MAGIC);
    files.add(f);
    return f;
  }

  private static boolean isArtificialRotate(byte[] e) {
    return e[EventHeader.TYPE_OFFSET] == EventType.ROTATE.code()
        && (e[EventHeader.FLAGS_OFFSET] & EventHeader.LOG_EVENT_ARTIFICIAL_F) != 0;
  }

  private static void storeUnlessArtificial(byte[] e, ByteArrayOutputStream file) {
    if (!isArtificialRotate(e)) {
      file.writeBytes(e);
    }
  }
}
