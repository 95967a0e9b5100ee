package org.binlogrelay.storage;

import java.util.Objects;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.GtidSet;

/**
 * What the store knows about one binlog file without reading it: kept in a small sidecar file
 * ({@code <name>.meta}, format in {@link MetadataFile}) so that opening a store reads a few hundred
 * bytes per file instead of the files themselves.
 *
 * <p>For a closed file everything describes the whole file. For the open file (the last one), the
 * {@code .meta} file on disk describes its last <em>checkpoint</em> ({@link #size()}, {@link
 * #transactions()}, {@link #gtidsAtEnd()}, {@link #firstGtid()}, {@link #lastGtid()}, {@link
 * #lastEventTime()}): a transaction boundary at which the file was durable, where recovery starts
 * scanning. {@link BinlogStore#files()} shows the same fields exact at the readable boundary
 * instead (see there).
 *
 * <p>Immutable: the GTID sets are copied in and out.
 *
 * @param name file name, e.g. {@code binlog.000003}
 * @param flavor MySQL or MariaDB
 * @param closed true once the file is complete (ended by ROTATE or STOP, or followed by a newer
 *     file): these values are final. In a {@code .meta} file also forced and its in-use flag
 *     settled; in {@link BinlogStore#files()} as soon as the writer finished the file and readers
 *     can read all of it (its last force may still be running: {@link BinlogStore#durable()} says
 *     what is on disk)
 * @param size closed: the file's length; open: the checkpoint offset
 * @param transactions complete transactions in the file (open: up to the checkpoint)
 * @param gtidsAtStart the GTID set before the file's first transaction: the file's PREVIOUS_GTIDS
 *     (MySQL) or GTID_LIST (MariaDB) event, or the previous file's end set if it has none
 * @param gtidsAtEnd the set after the last transaction (open: at the checkpoint)
 * @param firstGtid the first transaction's GTID as the server prints it, {@code null} if none yet
 * @param lastGtid the last transaction's GTID (open: at the checkpoint), {@code null} if none
 * @param firstEventTime the header timestamp (epoch seconds) of the file's first event, its
 *     FORMAT_DESCRIPTION, which is when the primary opened the file; 0 if unknown
 * @param lastEventTime the header timestamp of the last event (open: at the checkpoint); 0 if
 *     unknown
 * @param ending how the file ended (open: {@link Ending#NONE})
 * @param nextFile for {@link Ending#ROTATE}: the file the ROTATE names; otherwise {@code null}
 */
public record FileMetadata(
    String name,
    GtidFlavor flavor,
    boolean closed,
    long size,
    long transactions,
    GtidSet gtidsAtStart,
    GtidSet gtidsAtEnd,
    String firstGtid,
    String lastGtid,
    long firstEventTime,
    long lastEventTime,
    Ending ending,
    String nextFile) {

  /** The last event of a file. */
  public enum Ending {
    /**
     * Neither ROTATE nor STOP: the file is open, or the primary moved on without closing it (a
     * crash).
     */
    NONE,
    /** A ROTATE event naming the next file. */
    ROTATE,
    /** A STOP event: the primary shut down; its next file starts after a restart. */
    STOP
  }

  public FileMetadata {
    BinlogFileName.require(name, "file name");
    Objects.requireNonNull(flavor, "flavor");
    Objects.requireNonNull(ending, "ending");
    gtidsAtStart = requireFlavor(gtidsAtStart, flavor, "gtidsAtStart").copy();
    gtidsAtEnd = requireFlavor(gtidsAtEnd, flavor, "gtidsAtEnd").copy();
    if (size < BinlogFileName.FIRST_EVENT_OFFSET) {
      throw new IllegalArgumentException(
          name + ": size " + size + " is below the 4-byte magic number");
    }
    if ((ending == Ending.ROTATE) != (nextFile != null)) {
      throw new IllegalArgumentException(
          name + ": nextFile is set exactly when the file ends with ROTATE");
    }
  }

  private static GtidSet requireFlavor(GtidSet set, GtidFlavor flavor, String what) {
    Objects.requireNonNull(set, what);
    if (set.flavor() != flavor) {
      throw new IllegalArgumentException(
          what + " is a " + set.flavor() + " set in " + flavor + " metadata");
    }
    return set;
  }

  /** A copy of the set before the file's first transaction. */
  @Override
  public GtidSet gtidsAtStart() {
    return gtidsAtStart.copy();
  }

  /** A copy of the set after the file's last transaction (open file: at the checkpoint). */
  @Override
  public GtidSet gtidsAtEnd() {
    return gtidsAtEnd.copy();
  }

  /** The same metadata for a file now closed at {@code finalSize} with {@code ending}. */
  FileMetadata closedAs(long finalSize, Ending how, String next) {
    return new FileMetadata(
        name,
        flavor,
        true,
        finalSize,
        transactions,
        gtidsAtStart,
        gtidsAtEnd,
        firstGtid,
        lastGtid,
        firstEventTime,
        lastEventTime,
        how,
        next);
  }
}
