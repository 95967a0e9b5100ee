package org.binlogrelay.bench.stream;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.binlogrelay.protocol.event.EventHeader;

/**
 * Compares the files a {@link FileRebuilder} rebuilds from the stream with the source's own binlog
 * files in a directory, byte for byte, as the bytes arrive (nothing is written to disk). A file's
 * FORMAT_DESCRIPTION may differ in one bit: a source clears {@code LOG_EVENT_BINLOG_IN_USE_F}
 * (flags bit 0x1, file offset 21) of the file it is still writing before sending it; that bit alone
 * is accepted (its CRC32 does not cover it).
 *
 * <p>Per file it records the bytes compared, the parts not sent (a GTID dump skips transactions)
 * and whether the stream covered the file from offset 4 to its end on disk ({@link
 * FileResult#whole()}). The first difference fails at once with a {@link MismatchException} naming
 * the file, offset and byte values.
 *
 * <p>Not thread-safe: the stream's reading thread; {@link #results()} after the stream ended.
 */
public final class SourceFileComparison implements BinlogFileSink, AutoCloseable {
  private static final byte[] MAGIC = {(byte) 0xfe, 'b', 'i', 'n'};
  private static final int FLAGS_IN_FILE = 4 + EventHeader.FLAGS_OFFSET;

  /** What was compared of one file. */
  public record FileResult(
      String file, long size, long compared, long skipped, boolean complete, boolean whole) {}

  /** The stream's bytes differ from the source's file. */
  public static final class MismatchException extends IOException {
    private static final long serialVersionUID = 1L;

    MismatchException(String message) {
      super(message);
    }
  }

  private final Path directory;
  private final Map<String, Open> files = new LinkedHashMap<>();
  private ByteBuffer buffer = ByteBuffer.allocate(1 << 20);
  private Open current;

  /** A file being compared. */
  private static final class Open {
    final String name;
    final FileChannel channel;
    long size;
    long end = 4;
    long compared;
    long skipped;
    boolean startedAtFour;
    boolean complete;

    Open(String name, FileChannel channel, long size) {
      this.name = name;
      this.channel = channel;
      this.size = size;
    }
  }

  public SourceFileComparison(Path directory) {
    this.directory = directory;
  }

  @Override
  public void write(
      String file, long offset, byte[] b, int at, int length, boolean formatDescription)
      throws IOException {
    Open open = open(file);
    if (offset < open.end) {
      throw new MismatchException(
          file
              + ": the stream sent an event for offset "
              + offset
              + " after one ending at "
              + open.end
              + " (overlap)");
    }
    if (offset == 4) {
      open.startedAtFour = true;
      checkMagic(open);
    }
    open.skipped += offset - open.end;
    if (offset + length > open.size) {
      open.size = open.channel.size();
    }
    if (offset + length > open.size) {
      throw new MismatchException(
          file
              + ": the stream has an event at "
              + offset
              + ".."
              + (offset + length)
              + " but the file in "
              + directory
              + " has only "
              + open.size
              + " bytes (is it the source's directory, and"
              + " was the file copied before the source wrote that far?)");
    }
    byte[] expected = read(open, offset, length);
    int diff = Arrays.mismatch(expected, 0, length, b, at, at + length);
    if (diff >= 0
        && formatDescription
        && offset == 4
        && diff + offset == FLAGS_IN_FILE
        && (expected[diff] & ~EventHeader.LOG_EVENT_BINLOG_IN_USE_F) == b[at + diff]) {
      int rest = Arrays.mismatch(expected, diff + 1, length, b, at + diff + 1, at + length);
      diff = rest < 0 ? -1 : diff + 1 + rest;
    }
    if (diff >= 0) {
      throw new MismatchException(
          file
              + ": byte "
              + (offset + diff)
              + " differs (file 0x"
              + HexFormat.of().toHexDigits(expected[diff])
              + ", stream 0x"
              + HexFormat.of().toHexDigits(b[at + diff])
              + ") in the event at "
              + offset
              + " of "
              + length
              + " bytes");
    }
    open.compared += length;
    open.end = offset + length;
  }

  @Override
  public void fileComplete(String file) throws IOException {
    Open open = open(file);
    open.complete = true;
    if (open.end != open.size) {
      throw new MismatchException(
          file
              + " ended in the stream (ROTATE or STOP) at "
              + open.end
              + " but the file in "
              + directory
              + " has "
              + open.size
              + " bytes");
    }
  }

  private Open open(String file) throws IOException {
    if (current != null && current.name.equals(file)) {
      return current;
    }
    Open open = files.get(file);
    if (open == null) {
      if (file.contains("/") || file.contains("\\") || file.equals("..")) {
        throw new MismatchException(
            "the stream names file '" + file + "', which is not a plain file name");
      }
      Path path = directory.resolve(file);
      if (!Files.isRegularFile(path)) {
        throw new MismatchException("the stream sends " + file + ", which is not in " + directory);
      }
      FileChannel channel = FileChannel.open(path, StandardOpenOption.READ);
      open = new Open(file, channel, channel.size());
      files.put(file, open);
    }
    current = open;
    return open;
  }

  private void checkMagic(Open open) throws IOException {
    byte[] head = read(open, 0, 4);
    if (!Arrays.equals(Arrays.copyOf(head, 4), MAGIC)) {
      throw new MismatchException(
          open.name + " in " + directory + " does not start with the binlog magic number");
    }
  }

  private byte[] read(Open open, long offset, int length) throws IOException {
    if (buffer.capacity() < length) {
      buffer = ByteBuffer.allocate(Math.max(length, 2 * buffer.capacity()));
    }
    buffer.clear().limit(length);
    long at = offset;
    while (buffer.hasRemaining()) {
      int n = open.channel.read(buffer, at);
      if (n < 0) {
        throw new MismatchException(open.name + " ends at " + at + ", before " + (offset + length));
      }
      at += n;
    }
    return buffer.array();
  }

  /** One result per file the stream touched, in stream order. */
  public List<FileResult> results() {
    List<FileResult> out = new ArrayList<>();
    for (Open o : files.values()) {
      boolean whole = o.startedAtFour && o.skipped == 0 && o.end == o.size;
      out.add(new FileResult(o.name, o.size, o.compared, o.skipped, o.complete, whole));
    }
    return out;
  }

  /** Bytes compared in all files. */
  public long compared() {
    return files.values().stream().mapToLong(o -> o.compared).sum();
  }

  @Override
  public void close() throws IOException {
    for (Open o : files.values()) {
      o.channel.close();
    }
  }
}
