package org.binlogrelay.server.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.protocol.event.BinlogChecksum;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.event.FormatDescriptionEvent;
import org.binlogrelay.protocol.event.RotateEvent;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.MariadbGtidSet;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.FileVerification;
import org.binlogrelay.storage.StoreConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A MariaDB 11.8 source (binlog_legacy_event_pos=OFF) written into files of the relay's naming,
 * from the real fixture files: the events a transaction carries with log_pos 0 stay unchanged (same
 * bytes, no new CRC32), every other event gets its relay file position, and the store accepts the
 * whole as a continuation of a store that another server (the MariaDB 10.11 fixture's first file)
 * wrote.
 */
class RelayFilesUnpositionedTest {
  private static final long RELAY = 9001;

  @TempDir Path dir;

  @Test
  void unpositionedEventsKeepTheirBytesInRelayNamedFiles() throws Exception {
    try (BinlogStore store =
        BinlogStore.open(StoreConfig.builder(dir, GtidFlavor.MARIADB).build())) {
      assertThat(store.startStream()).isEmpty();
      byte[] oldFirst = fixture("mariadb-10.11", "mariadb-bin.000001");
      for (BinlogEvent e : dump("mariadb-bin.000001", oldFirst)) {
        store.append(e);
      }
      StoreTail tail = StoreTail.read(store, store.startStream().orElseThrow()).orElseThrow();
      assertThat(tail.nextFile()).isEqualTo("mariadb-bin.000002");

      byte[] source = fixture("mariadb-11.8", "mariadb-bin.000002");
      List<BinlogEvent> sourceEvents = dump("mariadb-bin.000002", source);
      RelayFiles relay =
          new RelayFiles(
              tail,
              RELAY,
              new MariadbPrimaryFlavor(),
              end -> {
                try {
                  store.sync().get(10, TimeUnit.SECONDS);
                } catch (Exception e) {
                  throw new IOException(e);
                }
                return store.executedGtids();
              });
      FormatDescriptionEvent format = null;
      List<byte[]> unpositioned = new ArrayList<>();
      for (BinlogEvent e : sourceEvents) {
        if (e.type() == EventType.FORMAT_DESCRIPTION) {
          format = FormatDescriptionEvent.parse(e);
        }
        if (e.header().logPos() == 0
            && !e.header().hasFlag(EventHeader.LOG_EVENT_ARTIFICIAL_F)
            && e.type() != EventType.FORMAT_DESCRIPTION) {
          unpositioned.add(e.toByteArray());
        }
        for (BinlogEvent mapped : relay.map(e, format)) {
          store.append(mapped);
        }
      }
      store.sync().get(10, TimeUnit.SECONDS);
      assertThat(unpositioned).as("the fixture's unpositioned events").hasSizeGreaterThan(5);

      FileVerification relayFile = store.verify("mariadb-bin.000002");
      assertThat(relayFile.ok()).as(relayFile.toString()).isTrue();
      byte[] written = Files.readAllBytes(dir.resolve("mariadb-bin.000002"));
      assertThat(EventHeader.parse(written, 4).serverId()).as("the relay's file").isEqualTo(RELAY);
      List<byte[]> keptAsTheyWere = new ArrayList<>();
      for (byte[] e : events(written)) {
        if (EventHeader.parse(e, 0).logPos() == 0) {
          keptAsTheyWere.add(e);
        }
      }
      assertThat(keptAsTheyWere)
          .as("every unpositioned event, byte for byte, in order")
          .usingElementComparator(Arrays::compare)
          .containsExactlyElementsOf(unpositioned);
      assertThat(store.executedGtids()).isEqualTo(MariadbGtidSet.parse("0-2-9,0-1-16,2-1-3"));
    }
  }

  /** A whole file as a dump from offset 4 sends it: an artificial ROTATE, then its events. */
  private static List<BinlogEvent> dump(String name, byte[] file) {
    List<BinlogEvent> out = new ArrayList<>();
    EventHeader h =
        new EventHeader(0, EventType.ROTATE.code(), 1, 0, 0, EventHeader.LOG_EVENT_ARTIFICIAL_F);
    out.add(BinlogEvent.assemble(h, new RotateEvent(4, name).encodeBody(), true));
    byte[] fde = file.clone();
    fde[4 + EventHeader.FLAGS_OFFSET] &=
        ~EventHeader.LOG_EVENT_BINLOG_IN_USE_F; // as a dump thread sends it
    BinlogChecksum.patch(fde, 4, (int) EventHeader.parse(fde, 4).eventSize());
    for (byte[] e : events(fde)) {
      out.add(BinlogEvent.wrap(e, true));
    }
    return out;
  }

  private static List<byte[]> events(byte[] file) {
    List<byte[]> out = new ArrayList<>();
    int p = 4;
    while (p < file.length) {
      int size = (int) EventHeader.parse(file, p).eventSize();
      out.add(Arrays.copyOfRange(file, p, p + size));
      p += size;
    }
    return out;
  }

  private static byte[] fixture(String directory, String name) throws IOException {
    try (InputStream in =
        RelayFilesUnpositionedTest.class.getResourceAsStream(
            "/fixtures/" + directory + "/" + name)) {
      if (in != null) {
        return in.readAllBytes();
      }
    }
    Path p = Path.of("").toAbsolutePath();
    while (p != null) {
      Path candidate =
          p.resolve("protocol/src/test/resources/fixtures").resolve(directory).resolve(name);
      if (Files.exists(candidate)) {
        return Files.readAllBytes(candidate);
      }
      p = p.getParent();
    }
    throw new IllegalStateException("fixture " + directory + "/" + name + " not found");
  }
}
