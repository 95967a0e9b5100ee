package org.binlogrelay.server.upstream;

import java.io.IOException;
import java.util.List;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.FormatDescriptionEvent;

/**
 * How one connection's dump stream becomes what the store is given: {@link PrimaryFiles} hands
 * every event on unchanged (the store keeps the primary's files byte for byte); {@link RelayFiles}
 * writes the stream of a server other than the one that wrote the stored files into files the relay
 * names, with positions and checksums rewritten. Chosen once per connection ({@link ResumePlan}).
 * Not thread-safe: the connection's thread.
 */
interface StreamMapping {

  /**
   * The events to append for one event of the dump stream, in order: often the event itself,
   * possibly none (dropped) or several (events the relay makes, then the event).
   *
   * @param event the event as received (checked: size, CRC32)
   * @param format the FORMAT_DESCRIPTION in force for the stream (the primary's)
   * @throws org.binlogrelay.protocol.ProtocolException if the event cannot come here
   * @throws IOException if the store could not say what it holds
   */
  List<BinlogEvent> map(BinlogEvent event, FormatDescriptionEvent format) throws IOException;
}
