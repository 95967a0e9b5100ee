package org.binlogrelay.server.serving;

import static org.binlogrelay.protocol.testing.Eventually.eventually;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.event.FormatDescriptionEvent;
import org.binlogrelay.protocol.event.RotateEvent;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.StoreConfig;

/**
 * Test side: the binlog files of a real MySQL 9.7 and MariaDB 10.11 server (the protocol module's
 * fixtures, see docs/fixtures.md), replayed into a store as a primary's dump thread sends them. The
 * files come from the test classpath when the protocol test-jar is on it, else from {@code
 * protocol/src/test/resources} of the checkout.
 */
final class StoreFixtures {
  static final int MAX_EVENT_SIZE = 64 << 20;

  final String directory;
  final GtidFlavor flavor;
  final List<String> files;
  final Properties expected = new Properties();
  private final Map<String, byte[]> bytes = new LinkedHashMap<>();

  private StoreFixtures(String directory) {
    this.directory = directory;
    try (InputStream in = open("expected.properties")) {
      expected.load(in);
      flavor =
          expected.getProperty("flavor").equals("mysql") ? GtidFlavor.MYSQL : GtidFlavor.MARIADB;
      files = List.of(expected.getProperty("files").split(","));
      for (String name : files) {
        try (InputStream f = open(name)) {
          bytes.put(name, f.readAllBytes());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static StoreFixtures mysql() {
    return new StoreFixtures("mysql-9.7");
  }

  static StoreFixtures mariadb() {
    return new StoreFixtures("mariadb-10.11");
  }

  private InputStream open(String name) throws IOException {
    InputStream in = StoreFixtures.class.getResourceAsStream("/fixtures/" + directory + "/" + name);
    if (in != null) {
      return in;
    }
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null) {
      Path candidate =
          dir.resolve("protocol/src/test/resources/fixtures").resolve(directory).resolve(name);
      if (Files.exists(candidate)) {
        return Files.newInputStream(candidate);
      }
      dir = dir.getParent();
    }
    throw new IllegalStateException(
        "fixture "
            + directory
            + "/"
            + name
            + " is neither on the test classpath nor"
            + " under protocol/src/test/resources of a parent directory of "
            + Path.of("").toAbsolutePath());
  }

  byte[] bytes(String file) {
    return bytes.get(file).clone();
  }

  String lastFile() {
    return files.get(files.size() - 1);
  }

  /** The events of {@code file} in order, as stored (each a copy). */
  List<byte[]> events(String file) {
    byte[] b = bytes.get(file);
    List<byte[]> out = new ArrayList<>();
    int p = 4;
    while (p < b.length) {
      int size = (int) EventHeader.parse(b, p).eventSize();
      out.add(Arrays.copyOfRange(b, p, p + size));
      p += size;
    }
    return out;
  }

  /** Offsets of the events of {@code file}. */
  List<Long> eventStarts(String file) {
    List<Long> out = new ArrayList<>();
    long p = 4;
    for (byte[] e : events(file)) {
      out.add(p);
      p += e.length;
    }
    return out;
  }

  /** A store in {@code dir} holding every file, the last one open (as the server had it). */
  BinlogStore store(Path dir) throws IOException {
    return store(dir, files.size());
  }

  /** A store in {@code dir} holding the first {@code count} files. */
  BinlogStore store(Path dir, int count) throws IOException {
    BinlogStore store =
        BinlogStore.open(StoreConfig.builder(dir, flavor).maxEventSize(MAX_EVENT_SIZE).build());
    store.startStream();
    for (String name : files.subList(0, count)) {
      append(store, name);
    }
    return store;
  }

  /**
   * Appends {@code file} whole, as the primary's dump sends it (on the caller's thread: the store's
   * writer).
   */
  void append(BinlogStore store, String file) throws IOException {
    store.append(rotate(file));
    for (byte[] event : events(file)) {
      if ((event[EventHeader.TYPE_OFFSET] & 0xff) == EventType.FORMAT_DESCRIPTION.code()) {
        event[EventHeader.FLAGS_OFFSET] &= ~EventHeader.LOG_EVENT_BINLOG_IN_USE_F;
      }
      store.append(BinlogEvent.wrap(event, true));
    }
  }

  /** Waits (up to a minute) until every file but the last is closed and everything is durable. */
  static void settle(BinlogStore store) throws Exception {
    store.sync().get(1, TimeUnit.MINUTES);
    eventually(
        Duration.ofMinutes(1),
        "the store settled",
        store::files,
        list ->
            list.subList(0, Math.max(0, list.size() - 1)).stream().allMatch(FileMetadata::closed)
                && !store.durableEnd().isBefore(store.readableEnd()));
  }

  static BinlogEvent rotate(String file) {
    EventHeader h =
        new EventHeader(0, EventType.ROTATE.code(), 1, 0, 0, EventHeader.LOG_EVENT_ARTIFICIAL_F);
    return BinlogEvent.assemble(h, new RotateEvent(4, file).encodeBody(), true);
  }

  FormatDescriptionEvent format(String file) {
    byte[] b = bytes.get(file);
    return FormatDescriptionEvent.parse(b, 4, (int) EventHeader.parse(b, 4).eventSize());
  }
}
