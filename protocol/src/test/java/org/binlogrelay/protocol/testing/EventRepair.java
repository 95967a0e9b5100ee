package org.binlogrelay.protocol.testing;

import org.binlogrelay.protocol.bytes.LittleEndian;
import org.binlogrelay.protocol.event.BinlogChecksum;
import org.binlogrelay.protocol.event.EventHeader;

/**
 * Test side: makes fuzzed binlog bytes well framed again where a random edit broke what a parser
 * checks first, so that a fuzzer gets past those checks to the code behind them. Walks the events
 * from an offset by their event_size fields and, as asked, recomputes each event's CRC32 and sets
 * its log_pos to its end; stops at the first size that is below a header and a checksum or runs
 * past the bytes. Intact events are left as they are (their CRC32 and log_pos are already right).
 * Stateless.
 */
public final class EventRepair {
  private EventRepair() {}

  /**
   * Repairs {@code file} in place from offset {@code from} (an event start, 4 in a binlog file).
   *
   * @param checksums recompute every event's CRC32
   * @param logPos set every event's log_pos to its end offset
   */
  public static void repair(byte[] file, int from, boolean checksums, boolean logPos) {
    if (!checksums && !logPos) {
      return;
    }
    int p = from;
    while (p >= 0 && p + EventHeader.SIZE <= file.length) {
      long size = LittleEndian.u32(file, p + EventHeader.EVENT_SIZE_OFFSET);
      if (size < EventHeader.SIZE + BinlogChecksum.SIZE || size > file.length - p) {
        return;
      }
      if (logPos) {
        long end = p + size;
        for (int i = 0; i < 4; i++) {
          file[p + EventHeader.LOG_POS_OFFSET + i] = (byte) (end >>> (8 * i));
        }
      }
      if (checksums) {
        BinlogChecksum.patch(file, p, (int) size);
      }
      p += (int) size;
    }
  }
}
