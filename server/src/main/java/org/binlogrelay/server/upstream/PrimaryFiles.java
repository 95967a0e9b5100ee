package org.binlogrelay.server.upstream;

import java.util.List;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.FormatDescriptionEvent;

/**
 * The store keeps the primary's own files: every event goes to the store exactly as received (no
 * copy), and the store's continuity checks hold the stream to the stored files. Stateless.
 */
final class PrimaryFiles implements StreamMapping {
  static final PrimaryFiles INSTANCE = new PrimaryFiles();

  private PrimaryFiles() {}

  @Override
  public List<BinlogEvent> map(BinlogEvent event, FormatDescriptionEvent format) {
    return List.of(event);
  }

  @Override
  public String toString() {
    return "the primary's files";
  }
}
