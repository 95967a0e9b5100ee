package org.binlogrelay.protocol.event;

import java.nio.charset.StandardCharsets;
import org.binlogrelay.protocol.bytes.ByteReader;
import org.binlogrelay.protocol.bytes.ByteWriter;

/**
 * ROTATE (4): the next binlog file and the position to continue at. Written at the end of a file,
 * and sent first by a dump thread as an artificial event ({@link
 * EventHeader#LOG_EVENT_ARTIFICIAL_F}, log_pos 0) naming the file it is about to stream. Body:
 *
 * <pre>
 *   u64   position        where to continue in the next file (4 for its start)
 *   rest  next_file       file name, no terminator
 * </pre>
 *
 * The 8-byte post-header is frozen by MySQL, so the layout does not depend on the
 * FORMAT_DESCRIPTION event (a dump stream's first ROTATE comes before it). Immutable.
 *
 * @param position offset in the next file (u64, raw)
 * @param nextFile the next file's name, e.g. "binlog.000002"
 */
public record RotateEvent(long position, String nextFile) {
  /** Size of the post-header. */
  public static final int POST_HEADER_LENGTH = 8;

  public static RotateEvent parse(BinlogEvent event) {
    return parse(event, FormatDescriptionEvent.assumed(ChecksumAlgorithm.OFF));
  }

  public static RotateEvent parse(BinlogEvent event, FormatDescriptionEvent fde) {
    ByteReader in = EventBody.open(event, fde, EventType.ROTATE);
    int start = in.position();
    int postHeader = fde.postHeaderLength(EventType.ROTATE, POST_HEADER_LENGTH);
    long position = 4;
    if (postHeader > 0) {
      position = in.u64("ROTATE position");
      EventBody.skipTo(in, start, postHeader, "ROTATE post-header");
    }
    if (!in.hasRemaining()) {
      throw EventBody.error(event, in, "no file name");
    }
    return new RotateEvent(position, in.string(in.remaining(), "ROTATE file name"));
  }

  /** The body (post-header and file name) of a ROTATE event, for {@link BinlogEvent#assemble}. */
  public byte[] encodeBody() {
    byte[] name = nextFile.getBytes(StandardCharsets.UTF_8);
    return new ByteWriter(POST_HEADER_LENGTH + name.length).u64(position).bytes(name).toByteArray();
  }
}
