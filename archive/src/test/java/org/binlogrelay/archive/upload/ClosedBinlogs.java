package org.binlogrelay.archive.upload;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.event.RotateEvent;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.testing.FixtureBinlogs;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.StoreConfig;

/**
 * Test side: a real store holding the MySQL 9.7 fixture's three files (4,274, 2,862 and 206,809
 * bytes; docs/fixtures.md) replayed as the primary's dump stream, the last one ended by a ROTATE to
 * {@code binlog.000004} so that all three are closed: {@link #ingest} appends them, event by event,
 * as the upstream would.
 */
public final class ClosedBinlogs {
  public static final String DIR = FixtureBinlogs.MYSQL;
  public static final List<String> NAMES = FixtureBinlogs.fileNames(DIR);

  private ClosedBinlogs() {}

  public static BinlogStore open(Path dir) throws IOException {
    return BinlogStore.open(
        StoreConfig.builder(dir, GtidFlavor.MYSQL).maxEventSize(16 << 20).build());
  }

  /**
   * Appends files {@code from} (0-based, inclusive) to {@code to} (exclusive); the stream starts
   * with {@code from == 0}. Only appending all three closes the last one.
   */
  public static void ingest(BinlogStore store, int from, int to) throws IOException {
    if (from == 0) {
      store.startStream();
    }
    for (BinlogEvent e : dumpStream(from, to)) {
      store.append(e);
    }
  }

  /** A store with all three files closed, durable and settled. */
  public static BinlogStore filled(Path dir) throws Exception {
    BinlogStore store = open(dir);
    ingest(store, 0, NAMES.size());
    settle(store);
    return store;
  }

  /** Waits until the store's writes are durable (closed files' final force and metadata done). */
  public static void settle(BinlogStore store) throws Exception {
    store.sync().get(1, TimeUnit.MINUTES);
  }

  /** The closed files' metadata. */
  public static List<FileMetadata> closed(BinlogStore store) {
    return store.files().stream().filter(FileMetadata::closed).toList();
  }

  /** The store's bytes of a file. */
  public static byte[] local(BinlogStore store, String name) throws IOException {
    return Files.readAllBytes(store.directory().resolve(name));
  }

  private static List<BinlogEvent> dumpStream(int from, int to) {
    List<BinlogEvent> out = new ArrayList<>();
    for (String name : NAMES.subList(from, to)) {
      byte[] b = FixtureBinlogs.bytes(DIR, name);
      out.add(artificialRotate(name));
      boolean first = true;
      long lastTime = 0;
      for (byte[] event : FixtureBinlogs.events(b)) {
        lastTime = EventHeader.parse(event, 0).timestamp();
        if (first) {
          event[EventHeader.FLAGS_OFFSET] &= ~EventHeader.LOG_EVENT_BINLOG_IN_USE_F;
          first = false;
        }
        out.add(BinlogEvent.wrap(event, true));
      }
      if (to == NAMES.size() && name.equals(NAMES.get(NAMES.size() - 1))) {
        byte[] body = new RotateEvent(4, "binlog.000004").encodeBody();
        long end = (long) b.length + EventHeader.SIZE + body.length + 4;
        out.add(
            BinlogEvent.assemble(
                new EventHeader(lastTime, EventType.ROTATE.code(), 1, 0, end, 0), body, true));
      }
    }
    return out;
  }

  private static BinlogEvent artificialRotate(String file) {
    EventHeader h =
        new EventHeader(0, EventType.ROTATE.code(), 1, 0, 0, EventHeader.LOG_EVENT_ARTIFICIAL_F);
    return BinlogEvent.assemble(h, new RotateEvent(4, file).encodeBody(), true);
  }
}
