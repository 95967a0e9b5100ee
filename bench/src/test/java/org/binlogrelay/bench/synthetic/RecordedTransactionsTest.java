package org.binlogrelay.bench.synthetic;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.binlogrelay.protocol.event.BinlogFileParser;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.junit.jupiter.api.Test;

/** What a recording keeps: the writes of the load, not a bulk load's transactions of megabytes. */
class RecordedTransactionsTest {
  private static final UUID SOURCE = UUID.fromString("5e7a0000-0000-4000-8000-00000000b1b2");

  @Test
  void transactionsOverTheBoundAreLeftOut() throws Exception {
    RecordedTransactions builtIn = RecordedTransactions.builtIn();
    byte[] small = builtIn.transactions().get(0);
    int[] starts = builtIn.eventOffsets().get(0);
    assertThat(starts.length).as("GTID, BEGIN, row events, XID").isGreaterThanOrEqualTo(4);
    // a bulk load's shape: the row events of a write repeated until the transaction is over the
    // bound
    byte[] head = Arrays.copyOfRange(small, 0, starts[2]);
    byte[] rows = Arrays.copyOfRange(small, starts[2], starts[starts.length - 1]);
    byte[] xid = Arrays.copyOfRange(small, starts[starts.length - 1], small.length);
    ByteArrayOutputStream big = new ByteArrayOutputStream();
    List<Integer> bigStarts = new ArrayList<>();
    bigStarts.add(0);
    bigStarts.add(starts[1]);
    big.writeBytes(head);
    while (big.size() <= RecordedTransactions.MAX_TRANSACTION_BYTES) {
      for (int i = 2; i < starts.length - 1; i++) {
        bigStarts.add(big.size() + starts[i] - starts[2]);
      }
      big.writeBytes(rows);
    }
    bigStarts.add(big.size());
    big.writeBytes(xid);
    RecordedTransactions recording =
        new RecordedTransactions(
            builtIn.formatDescription(),
            builtIn.serverVersion(),
            builtIn.sourceId(),
            List.of(small, big.toByteArray(), small),
            List.of(starts, bigStarts.stream().mapToInt(Integer::intValue).toArray(), starts));

    // a binlog file with the three, as the synthetic primary writes it (positions and CRC32s right)
    SyntheticBinlog binlog = new SyntheticBinlog(recording, SOURCE, 7, "binlog", 1 << 30);
    ByteArrayOutputStream file = new ByteArrayOutputStream();
    file.writeBytes(BinlogFileParser.MAGIC);
    for (byte[] e : binlog.startOfCurrentFile()) {
      if (!artificialRotate(e)) { // a replica's stream starts with one; a file does not
        file.writeBytes(e);
      }
    }
    SyntheticBinlog.EventSink sink =
        new SyntheticBinlog.EventSink() {
          @Override
          public void transaction(byte[] events, int[] eventStarts, long gno) {
            file.writeBytes(events);
          }

          @Override
          public void event(byte[] event) {
            if (!artificialRotate(event)) {
              file.writeBytes(event);
            }
          }
        };
    for (int i = 0; i < 3; i++) {
      binlog.next(1_700_000_000_000_000L + i, sink);
    }
    assertThat(file.size()).isGreaterThan(RecordedTransactions.MAX_TRANSACTION_BYTES);

    RecordedTransactions read =
        RecordedTransactions.parse(file.toByteArray(), "three.binlog", Integer.MAX_VALUE);
    assertThat(read.transactions()).hasSize(2);
    assertThat(read.transactions()).allSatisfy(t -> assertThat(t).hasSize(small.length));
  }

  private static boolean artificialRotate(byte[] e) {
    return e[EventHeader.TYPE_OFFSET] == EventType.ROTATE.code()
        && (e[EventHeader.FLAGS_OFFSET] & EventHeader.LOG_EVENT_ARTIFICIAL_F) != 0;
  }
}
