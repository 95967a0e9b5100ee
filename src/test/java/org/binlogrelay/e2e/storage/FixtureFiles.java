package org.binlogrelay.e2e.storage;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.event.FormatDescriptionEvent;
import org.binlogrelay.protocol.event.RotateEvent;
import org.binlogrelay.protocol.gtid.GtidFlavor;

/**
 * The fixture binlogs of the protocol module's tests (real MySQL 9.7 and MariaDB 10.11 files, see
 * docs/fixtures.md), read from the repository, and their replay as a primary's dump thread sends
 * them from the first file: per file an artificial ROTATE naming it at offset 4, its
 * FORMAT_DESCRIPTION with the in-use flag cleared, then its events. The storage tests' {@code
 * SourceBinlog} does the same; it is a test class of another module, so this is a small copy of the
 * part the end-to-end tests need. Immutable.
 */
final class FixtureFiles {

  final String directory;
  final GtidFlavor flavor;
  final List<String> files;
  final Map<String, byte[]> bytes = new LinkedHashMap<>();
  final Map<String, Path> paths = new LinkedHashMap<>();
  private final Properties expected = new Properties();

  private FixtureFiles(String directory, Path dir) throws IOException {
    this.directory = directory;
    try (Reader in = Files.newBufferedReader(dir.resolve("expected.properties"))) {
      expected.load(in);
    }
    flavor = expected.getProperty("flavor").equals("mysql") ? GtidFlavor.MYSQL : GtidFlavor.MARIADB;
    files = List.of(expected.getProperty("files").split(","));
    for (String name : files) {
      paths.put(name, dir.resolve(name));
      bytes.put(name, Files.readAllBytes(dir.resolve(name)));
    }
  }

  /**
   * {@code mysql-9.7} or {@code mariadb-10.11}, from {@code protocol/src/test/resources/fixtures}.
   */
  static FixtureFiles load(String directory) throws IOException {
    String repo = System.getProperty("binlogrelay.repo");
    if (repo == null) {
      throw new IllegalStateException(
          "system property binlogrelay.repo is not set; run the end-to-end tests"
              + " through Maven (mvn -pl e2e -am verify), whose Failsafe configuration sets it");
    }
    Path dir =
        Path.of(repo)
            .toAbsolutePath()
            .normalize()
            .resolve("protocol/src/test/resources/fixtures")
            .resolve(directory);
    if (!Files.isRegularFile(dir.resolve("expected.properties"))) {
      throw new IllegalStateException(
          "fixture binlogs missing: no "
              + dir.resolve("expected.properties")
              + "; they are committed with the protocol module"
              + " (scripts/generate-protocol-fixtures.sh makes them)");
    }
    return new FixtureFiles(directory, dir);
  }

  /**
   * The GTIDs of {@code file}'s transactions in order, as the server listed them when the fixtures
   * were made.
   */
  List<String> serverGtids(String file) {
    String list = expected.getProperty("file." + file + ".gtids", "");
    return list.isEmpty() ? List.of() : List.of(list.split(","));
  }

  /** The dump stream of every file from the first one's offset 4. */
  List<BinlogEvent> dumpStream() {
    List<BinlogEvent> out = new ArrayList<>();
    for (String name : files) {
      byte[] b = bytes.get(name);
      int fdeSize = (int) EventHeader.parse(b, 4).eventSize();
      boolean checksum = FormatDescriptionEvent.parse(b, 4, fdeSize).eventsHaveChecksum();
      EventHeader rotate =
          new EventHeader(0, EventType.ROTATE.code(), 1, 0, 0, EventHeader.LOG_EVENT_ARTIFICIAL_F);
      out.add(BinlogEvent.assemble(rotate, new RotateEvent(4, name).encodeBody(), checksum));
      byte[] fde = Arrays.copyOfRange(b, 4, 4 + fdeSize);
      fde[EventHeader.FLAGS_OFFSET] &=
          ~EventHeader.LOG_EVENT_BINLOG_IN_USE_F; // as the dump thread sends it
      out.add(BinlogEvent.wrap(fde, checksum));
      int p = 4 + fdeSize;
      while (p < b.length) {
        int size = (int) EventHeader.parse(b, p).eventSize();
        out.add(BinlogEvent.wrap(b, p, size, checksum));
        p += size;
      }
    }
    return out;
  }
}
