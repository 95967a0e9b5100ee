package org.binlogrelay.protocol.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import org.binlogrelay.protocol.event.EventHeader;

/**
 * Test side: the real servers' binlog files under {@code src/test/resources/fixtures/}
 * (docs/fixtures.md), read as plain bytes, for tests of other packages and modules (fuzz seeds,
 * stores filled from them). {@link #MYSQL} and {@link #MARIADB} name the two directories.
 * Stateless; thread-safe.
 */
public final class FixtureBinlogs {
  /** {@code fixtures/mysql-9.7}. */
  public static final String MYSQL = "mysql-9.7";

  /** {@code fixtures/mariadb-10.11}. */
  public static final String MARIADB = "mariadb-10.11";

  private FixtureBinlogs() {}

  /** What the server reported about its files ({@code expected.properties}). */
  public static Properties expected(String directory) {
    Properties p = new Properties();
    try (InputStream in = open(directory, "expected.properties")) {
      p.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return p;
  }

  /** The file names in server order. */
  public static List<String> fileNames(String directory) {
    return Arrays.asList(expected(directory).getProperty("files").split(","));
  }

  /** The bytes of one file. */
  public static byte[] bytes(String directory, String name) {
    try (InputStream in = open(directory, name)) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The events of a binlog file as separate arrays, by their event_size fields (the fixtures are
   * well-formed; nothing is checked here).
   */
  public static List<byte[]> events(byte[] file) {
    List<byte[]> events = new ArrayList<>();
    int p = 4;
    while (p + EventHeader.SIZE <= file.length) {
      int size = (int) EventHeader.parse(file, p).eventSize();
      events.add(Arrays.copyOfRange(file, p, p + size));
      p += size;
    }
    return events;
  }

  private static InputStream open(String directory, String name) {
    String path = "/fixtures/" + directory + "/" + name;
    InputStream in = FixtureBinlogs.class.getResourceAsStream(path);
    if (in == null) {
      throw new IllegalStateException(
          path + " is missing; run scripts/generate-protocol-fixtures.sh");
    }
    return in;
  }
}
