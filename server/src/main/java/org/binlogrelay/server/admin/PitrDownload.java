package org.binlogrelay.server.admin;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.stream.ChunkedInput;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.storage.BinlogFileName;
import org.binlogrelay.storage.BinlogSource;
import org.binlogrelay.storage.OpenedFile;
import org.binlogrelay.storage.pitr.StopPointFinder;

/**
 * {@code GET /api/v1/pitr/binlog?name=F&end=P}: file {@code F}'s bytes from its start up to offset
 * {@code P} (its readable length without {@code end}), for {@code mysqlbinlog} to apply. Streamed
 * in chunks of {@value #CHUNK} bytes read from the file as the connection takes them (Netty's
 * {@code ChunkedWriteHandler} pulls them), never the whole file in memory. The FORMAT_DESCRIPTION's
 * {@code LOG_EVENT_BINLOG_IN_USE_F} is cleared in the first chunk, as a dump thread does: the file
 * being written (or cut at a stop point) then reads as a closed file, and since the event's CRC32
 * is computed with the flag clear, the checksum stays right.
 *
 * <p>Not thread-safe: opened on a worker, then read by the connection's I/O thread only.
 */
final class PitrDownload implements ChunkedInput<ByteBuf> {
  static final String PATH = "/api/v1/pitr/binlog";
  private static final int CHUNK = 64 * 1024;
  private static final Duration FETCH_TIMEOUT = Duration.ofMinutes(5);

  /** Either the download to stream or the error to answer. */
  record Outcome(Answer error, PitrDownload download) {}

  private final String name;
  private final OpenedFile file;
  private final long length;
  private long offset;

  private PitrDownload(String name, OpenedFile file, long length) {
    this.name = name;
    this.file = file;
    this.length = length;
  }

  /**
   * Opens the file the query names on {@code source} (waiting for an archived file's fetch).
   *
   * @throws ApiException 400 for a missing or bad parameter, 404 for a file the relay does not hold
   */
  static PitrDownload open(BinlogSource source, Map<String, List<String>> query)
      throws ApiException, IOException {
    String name = single(query, "name");
    if (name == null || name.isBlank()) {
      throw ApiException.badRequest(
          "give the file to download: " + PATH + "?name=binlog.000042[&end=<offset>]");
    }
    if (source.file(name).isEmpty()) {
      throw ApiException.notFound(
          "the relay does not hold " + name + " (GET /api/v1/binlogs lists its files)");
    }
    long readable = source.readableLength(name);
    long end = readable;
    String endText = single(query, "end");
    if (endText != null) {
      try {
        end = Long.parseLong(endText.strip());
      } catch (NumberFormatException e) {
        throw ApiException.badRequest("\"end\": '" + endText + "' is not a byte offset");
      }
      if (end < BinlogFileName.FIRST_EVENT_OFFSET || end > readable) {
        throw ApiException.badRequest(
            "\"end\": "
                + end
                + " is outside "
                + name
                + ", whose readable length is "
                + readable
                + " (give an offset from 4 to it)");
      }
    }
    OpenedFile opened;
    try {
      opened = StopPointFinder.open(source, name, FETCH_TIMEOUT);
    } catch (NoSuchFileException e) {
      throw ApiException.notFound("the relay no longer holds " + name + " (purged meanwhile?)");
    }
    return new PitrDownload(name, opened, end);
  }

  private static String single(Map<String, List<String>> query, String key) throws ApiException {
    List<String> values = query.get(key);
    if (values == null || values.isEmpty()) {
      return null;
    }
    if (values.size() > 1) {
      throw ApiException.badRequest("\"" + key + "\" is given more than once");
    }
    return values.get(0);
  }

  /** The file's name. */
  String name() {
    return name;
  }

  @Override
  public boolean isEndOfInput() {
    return offset >= length;
  }

  @Override
  public void close() throws IOException {
    file.close();
  }

  @Deprecated
  @Override
  @SuppressWarnings("InlineMeSuggester") // Netty's interface method, not ours to inline
  public ByteBuf readChunk(ChannelHandlerContext ctx) throws IOException {
    return readChunk(ctx.alloc());
  }

  @Override
  public ByteBuf readChunk(ByteBufAllocator allocator) throws IOException {
    if (offset >= length) {
      return null;
    }
    int size = (int) Math.min(CHUNK, length - offset);
    ByteBuf buf = allocator.heapBuffer(size);
    boolean done = false;
    try {
      long at = offset;
      while (buf.writerIndex() < size) {
        int n = buf.writeBytes(file.channel(), at, size - buf.writerIndex());
        if (n < 0) {
          throw new IOException(name + " ended at " + at + ", before " + length);
        }
        at += n;
      }
      long flags = BinlogFileName.FIRST_EVENT_OFFSET + EventHeader.FLAGS_OFFSET;
      if (offset <= flags && flags < offset + size) {
        int i = (int) (flags - offset);
        buf.setByte(i, buf.getByte(i) & ~EventHeader.LOG_EVENT_BINLOG_IN_USE_F);
      }
      offset += size;
      done = true;
      return buf;
    } finally {
      if (!done) {
        buf.release();
      }
    }
  }

  @Override
  public long length() {
    return length;
  }

  @Override
  public long progress() {
    return offset;
  }
}
