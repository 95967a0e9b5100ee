package org.binlogrelay.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.binlogrelay.protocol.event.BinlogChecksum;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.storage.read.BinlogReader;
import org.binlogrelay.storage.read.EventBatch;
import org.binlogrelay.storage.read.ReadResult;
import org.binlogrelay.storage.read.ReaderOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A binlog file past 4 GiB: one transaction never spans files, so a file grows past {@code
 * max_binlog_size}, and past 4 GiB when its transactions are that large; {@code log_pos} is 4
 * bytes, so the servers write the end offset modulo 2^32 from there on. The store accepts such
 * events, recovers such a file without cutting it, and readers read it to the end. Five
 * transactions of almost 1 GiB (the largest event MySQL allows) are appended after a real MySQL 9.7
 * file's events, made from that file's first row transaction with its WRITE_ROWS event grown (the
 * store does not parse rows) and its GTID renumbered.
 */
class FileOver4GibTest {
  private static final int BIG = (1 << 30) - 4096;
  private static final int TRANSACTIONS = 5;

  /** Byte offset of the GNO in a MySQL GTID event: header, flags (1), source UUID (16). */
  private static final int GNO_OFFSET = EventHeader.SIZE + 1 + 16;

  @TempDir Path dir;

  @Test
  void storesRecoversAndReadsAFileLargerThan4Gib() throws Exception {
    SourceBinlog source = SourceBinlog.mysql();
    String file = source.files.get(0);
    List<BinlogEvent> stream = source.dumpStream(Position.startOf(file));
    StoreConfig config =
        StoreConfig.builder(dir, source.flavor).syncPolicy(SyncPolicy.everyTransaction()).build();
    Position end;
    try (BinlogStore store = BinlogStore.open(config)) {
      store.startStream();
      List<byte[]> template = null;
      for (int i = 0; i < stream.size(); i++) {
        BinlogEvent e = stream.get(i);
        if (i > 1 && (e.type() == EventType.ROTATE || e.type() == EventType.STOP)) {
          break; // the file's own ending: more events follow instead
        }
        store.append(e);
        if (template == null
            && e.type() == EventType.GTID
            && i + 4 < stream.size()
            && stream.get(i + 2).type() == EventType.TABLE_MAP
            && stream.get(i + 3).type() == EventType.WRITE_ROWS
            && stream.get(i + 4).type() == EventType.XID) {
          template = new ArrayList<>();
          for (int j = i; j <= i + 4; j++) {
            template.add(stream.get(j).toByteArray());
          }
        }
      }
      assertThat(template)
          .as("a GTID, BEGIN, TABLE_MAP, WRITE_ROWS, XID transaction in " + file)
          .isNotNull();
      long offset = store.readableEnd().offset();
      byte[] big = new byte[BIG];
      byte[] rows = template.get(3);
      System.arraycopy(rows, 0, big, 0, rows.length - 4);
      for (int t = 1; t <= TRANSACTIONS; t++) {
        for (int j = 0; j < 5; j++) {
          byte[] event = j == 3 ? big : template.get(j).clone();
          if (j == 0) {
            writeLong(event, GNO_OFFSET, 1_000_000L + t);
          }
          offset += event.length;
          writeInt(event, EventHeader.EVENT_SIZE_OFFSET, event.length);
          writeInt(event, EventHeader.LOG_POS_OFFSET, Position.logPosOf(offset));
          BinlogChecksum.patch(event, 0, event.length);
          store.append(BinlogEvent.wrap(event, true));
        }
      }
      store.sync().get();
      end = store.readableEnd();
      assertThat(end).isEqualTo(new Position(file, offset));
      assertThat(end.offset()).isGreaterThan(4L << 30);
    }
    assertThat(Files.size(dir.resolve(file))).isEqualTo(end.offset());

    try (BinlogStore store = BinlogStore.open(config)) {
      assertThat(store.recoveryReport().truncations()).as("recovery cuts nothing").isEmpty();
      assertThat(store.startStream()).contains(end);
      assertThat(store.executedGtids().toString()).contains(":1000001-1000005");
      assertThat(store.verify(file).ok()).as(store.verify(file).toString()).isTrue();
      long events = 0;
      long last = 0;
      try (BinlogReader reader =
          BinlogReader.open(
              store,
              Position.startOf(file),
              ReaderOptions.defaults().withMaxBatchBytes(BIG + 4096))) {
        while (!reader.position().equals(end)) {
          ReadResult r = reader.poll();
          if (r instanceof EventBatch batch) {
            try (batch) {
              events += batch.eventCount();
              last = batch.end();
            }
          } else {
            throw new AssertionError("unexpected " + r + " at " + reader.position());
          }
        }
      }
      assertThat(last).as("read to the end").isEqualTo(end.offset());
      assertThat(events).isGreaterThan(TRANSACTIONS * 5);
    }
  }

  private static void writeInt(byte[] b, int at, long v) {
    for (int i = 0; i < 4; i++) {
      b[at + i] = (byte) (v >>> (8 * i));
    }
  }

  private static void writeLong(byte[] b, int at, long v) {
    for (int i = 0; i < 8; i++) {
      b[at + i] = (byte) (v >>> (8 * i));
    }
  }
}
