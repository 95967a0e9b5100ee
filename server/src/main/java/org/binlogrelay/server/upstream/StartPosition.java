package org.binlogrelay.server.upstream;

import java.io.IOException;
import java.util.Objects;
import java.util.Optional;

/**
 * Where the relay starts copying when its store is empty. A store holds whole files (from offset 4,
 * byte for byte), so every choice resolves to the start of one of the primary's binlog files; once
 * the store holds anything, it alone decides where the stream continues ({@code
 * BinlogStore.startStream()}).
 *
 * <ul>
 *   <li>{@link #earliest()}: the oldest file the primary still has ({@code SHOW BINARY LOGS}, first
 *       row).
 *   <li>{@link #current()}: the file the primary writes now, from its start.
 *   <li>{@link #gtids(String)}: the file where a replica that executed these GTIDs would start: the
 *       primary itself picks it (a GTID dump is opened and its first ROTATE read), so its rules and
 *       its 1236 errors for purged transactions apply. MySQL: a GTID set as {@code @@gtid_executed}
 *       prints it; MariaDB: a GTID position as {@code @@gtid_slave_pos} prints it.
 *   <li>{@link #file(String, long)}: a named file; the position must be 4.
 * </ul>
 *
 * Immutable.
 */
public sealed interface StartPosition {

  static StartPosition earliest() {
    return Earliest.INSTANCE;
  }

  static StartPosition current() {
    return Current.INSTANCE;
  }

  static StartPosition gtids(String gtids) {
    return new Gtids(gtids);
  }

  static StartPosition file(String file, long position) {
    return new File(file, position);
  }

  /**
   * Where the archive ends if it holds anything, else {@code configured}; {@code configured} itself
   * if it already is one.
   */
  static StartPosition afterArchive(StartPosition configured, ArchiveEnd end) {
    return configured instanceof AfterArchive ? configured : new AfterArchive(configured, end);
  }

  /** The end of the relay's archive, asked when an empty store starts (network). */
  interface ArchiveEnd {
    /**
     * The file that follows the archive's newest file (its ROTATE's next file, else the next
     * sequence number), empty if the archive holds nothing.
     *
     * @throws IOException if the archive cannot be listed now (the upstream retries with its
     *     back-off)
     */
    Optional<String> nextFile() throws IOException;

    /** Where the archive is ({@code s3://bucket/prefix/}), for messages. */
    String location();
  }

  /**
   * An empty store with an archive ({@code --archive}): continues the archive at offset 4 of the
   * file after its newest one, so that store and archive join with no gap and no duplicate. With an
   * empty archive, {@code configured} applies. A {@code configured} file must be that file; a GTID
   * or {@code current} start is refused (the archive decides).
   *
   * @param configured the configured start ({@code --start}; {@code earliest} by default, which the
   *     archive's end replaces)
   * @param end the archive's end
   */
  record AfterArchive(StartPosition configured, ArchiveEnd end) implements StartPosition {
    public AfterArchive {
      Objects.requireNonNull(configured, "configured");
      Objects.requireNonNull(end, "end");
    }

    @Override
    public String toString() {
      return "the end of the archive " + end.location() + ", else " + configured;
    }
  }

  /** The oldest binlog file the primary has. */
  enum Earliest implements StartPosition {
    INSTANCE;

    @Override
    public String toString() {
      return "earliest";
    }
  }

  /** The primary's current binlog file, from offset 4. */
  enum Current implements StartPosition {
    INSTANCE;

    @Override
    public String toString() {
      return "current";
    }
  }

  /**
   * The file where a replica that executed {@code gtids} would start.
   *
   * @param gtids a MySQL GTID set or a MariaDB GTID position, in the server's text form (may be
   *     empty)
   */
  record Gtids(String gtids) implements StartPosition {
    public Gtids {
      Objects.requireNonNull(gtids, "gtids");
    }

    @Override
    public String toString() {
      return "gtids '" + gtids + "'";
    }
  }

  /**
   * A named file.
   *
   * @param file the primary's file name, e.g. {@code binlog.000042}
   * @param position must be 4: the store keeps whole files
   */
  record File(String file, long position) implements StartPosition {
    public File {
      Objects.requireNonNull(file, "file");
      if (file.isEmpty() || file.contains("/")) {
        throw new IllegalArgumentException(
            "start file '" + file + "' must be a binlog file name such as" + " binlog.000042");
      }
      if (position != 4) {
        throw new IllegalArgumentException(
            "cannot start at "
                + file
                + ":"
                + position
                + ": the relay stores whole"
                + " binlog files, byte for byte, so an empty store starts at offset 4 of a file; use "
                + file
                + ":4");
      }
    }

    @Override
    public String toString() {
      return file + ":" + position;
    }
  }
}
