package org.binlogrelay.server.serving;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import org.binlogrelay.protocol.bytes.LittleEndian;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.storage.BinlogFileName;
import org.binlogrelay.storage.BinlogSource;
import org.binlogrelay.storage.OpenedFile;

/**
 * Reads the event at offset 4 of a stored file (its FORMAT_DESCRIPTION), which a dump sends first
 * when it starts inside the file. Stateless.
 */
final class FormatDescriptionReader {
  /** Far above any real FORMAT_DESCRIPTION (about 100 to 200 bytes); a larger size means damage. */
  static final int MAX_SIZE = 64 << 10;

  private FormatDescriptionReader() {}

  /** The whole first event of {@code file}, as stored (in-use flag included). */
  static byte[] read(BinlogSource store, String file) throws IOException {
    try (OpenedFile opened = store.open(file)) {
      FileChannel channel = opened.channel();
      byte[] header = readAt(channel, file, BinlogFileName.FIRST_EVENT_OFFSET, EventHeader.SIZE);
      long size = LittleEndian.u32(header, EventHeader.EVENT_SIZE_OFFSET);
      if (size < EventHeader.SIZE || size > MAX_SIZE) {
        throw new IOException(
            "stored binlog "
                + file
                + " starts with an event of "
                + size
                + " bytes at offset 4,"
                + " not a FORMAT_DESCRIPTION; the file is damaged (check it with the store's verify)");
      }
      return readAt(channel, file, BinlogFileName.FIRST_EVENT_OFFSET, (int) size);
    }
  }

  private static byte[] readAt(FileChannel channel, String file, long position, int length)
      throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate(length);
    while (buffer.hasRemaining()) {
      if (channel.read(buffer, position + buffer.position()) < 0) {
        throw new EOFException(
            "stored binlog "
                + file
                + " ends at "
                + (position + buffer.position())
                + ", inside its first event (at 4, "
                + length
                + " bytes)");
      }
    }
    return buffer.array();
  }
}
