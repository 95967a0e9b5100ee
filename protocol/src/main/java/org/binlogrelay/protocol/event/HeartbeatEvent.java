package org.binlogrelay.protocol.event;

import java.nio.charset.StandardCharsets;
import org.binlogrelay.protocol.bytes.ByteReader;

/**
 * HEARTBEAT (27): sent by a dump thread when it has had nothing to send for the heartbeat period;
 * never written to a file. The body (no post-header) is the current binlog file name, no
 * terminator; the header's log_pos is the current position in that file. Immutable.
 *
 * @param logFile the file the sender is positioned in
 * @param position the sender's position in it (from the header's log_pos)
 */
public record HeartbeatEvent(String logFile, long position) {

  public static HeartbeatEvent parse(BinlogEvent event, FormatDescriptionEvent fde) {
    ByteReader in = EventBody.open(event, fde, EventType.HEARTBEAT); // no post-header, as in MySQL
    if (!in.hasRemaining()) {
      throw EventBody.error(event, in, "no file name");
    }
    return new HeartbeatEvent(
        in.string(in.remaining(), "HEARTBEAT file name"), event.header().logPos());
  }

  /** The body: the file name. The position goes in the header's log_pos. */
  public byte[] encodeBody() {
    return logFile.getBytes(StandardCharsets.UTF_8);
  }
}
