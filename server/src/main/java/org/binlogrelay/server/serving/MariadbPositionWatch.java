package org.binlogrelay.server.serving;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.binlogrelay.protocol.gtid.MariadbGtid;
import org.binlogrelay.protocol.gtid.MariadbGtidSet;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.read.MariadbGtidFilter;
import org.binlogrelay.storage.read.StoredTransaction;
import org.binlogrelay.storage.read.TransactionFilter;

/**
 * A MariaDB GTID start's filter, watched for what MariaDB's dump thread does around it ({@code
 * send_event_to_slave} in {@code sql/sql_repl.cc}):
 *
 * <ul>
 *   <li>while any domain still waits for the replica's GTID, it records every GTID that goes by
 *       ({@code until_binlog_state});
 *   <li>when a group reaches a domain's position, it sends a fake GTID_LIST with that state and the
 *       position after the group (after its GTID event if the group is sent), so that the replica's
 *       file position (Read_Master_Log_Pos) counts the groups it did not receive. Those become
 *       {@link Marker}s here;
 *   <li>while a domain waits, each file's FORMAT_DESCRIPTION goes out with {@code created} = 0.
 * </ul>
 *
 * <p>Not thread-safe: owned by one dump's reader (which calls the filter methods) and stream (which
 * takes the markers), both on the connection's event loop.
 */
final class MariadbPositionWatch implements TransactionFilter, PositionWatch {

  /**
   * A fake GTID_LIST to send.
   *
   * @param file the file of the group that reached a position
   * @param groupStart where that group starts
   * @param groupEnd where it ends
   * @param skipped whether the group was skipped (the replica's own GTID): the list goes after the
   *     group; else after its first event
   * @param state the GTIDs recorded so far
   */
  record Marker(
      String file, long groupStart, long groupEnd, boolean skipped, List<MariadbGtid> state) {}

  private final MariadbGtidFilter filter;
  private final MariadbGtidSet seen = MariadbGtidSet.empty();
  private final ArrayDeque<Marker> markers = new ArrayDeque<>();
  private boolean reachedAtPoll;

  MariadbPositionWatch(MariadbGtidFilter filter) {
    this.filter = filter;
    this.reachedAtPoll = !filter.mayMatch();
  }

  private MariadbPositionWatch(MariadbPositionWatch other) {
    this.filter = other.filter.copy();
    other.seen.gtids().forEach(seen::add);
    this.markers.addAll(other.markers);
    this.reachedAtPoll = other.reachedAtPoll;
  }

  @Override
  public boolean skip(StoredTransaction transaction) {
    int waiting = filter.waitingFor().size();
    boolean skip = filter.skip(transaction);
    if (waiting > 0 && transaction.gtid() instanceof MariadbGtid gtid) {
      seen.add(gtid);
      if (filter.waitingFor().size() < waiting) {
        markers.add(
            new Marker(
                transaction.file(),
                transaction.start(),
                transaction.end(),
                skip,
                new ArrayList<>(seen.gtids())));
      }
    }
    return skip;
  }

  @Override
  public boolean startFile(FileMetadata file) {
    return filter.startFile(file);
  }

  @Override
  public boolean mayMatch() {
    return filter.mayMatch();
  }

  @Override
  public MariadbPositionWatch copy() {
    return new MariadbPositionWatch(this);
  }

  /**
   * The stream is about to poll its reader: remember whether every domain's position was reached
   * before.
   */
  @Override
  public void beforePoll() {
    reachedAtPoll = !filter.mayMatch();
  }

  /** Whether every domain had reached the replica's position when the stream last polled. */
  boolean reachedAtPoll() {
    return reachedAtPoll;
  }

  /** The oldest marker not yet taken, or null. */
  private Marker peekMarker() {
    return markers.peekFirst();
  }

  private Marker takeMarker() {
    return markers.pollFirst();
  }

  @Override
  public boolean addsEvents() {
    return true;
  }

  /**
   * Every domain reached its position and every GTID_LIST owed went out: a domain's position is
   * reached once, so nothing is added any more.
   */
  @Override
  public boolean mayAddEvents() {
    return filter.mayMatch() || !markers.isEmpty();
  }

  /**
   * A GTID_LIST for each group of {@code file} the replica had that reached a position, up to
   * {@code to}.
   */
  @Override
  public List<byte[]> afterSkipped(String file, long to, long serverId, boolean checksum) {
    List<byte[]> out = null;
    for (Marker m = peekMarker();
        m != null && m.skipped() && m.file().equals(file) && m.groupEnd() <= to;
        m = peekMarker()) {
      takeMarker();
      if (out == null) {
        out = new ArrayList<>(1);
      }
      out.add(ArtificialEvents.gtidList(serverId, m.state(), m.groupEnd(), checksum));
    }
    return out == null ? List.of() : out;
  }

  /** A GTID_LIST after the first event of each sent group that reached a position. */
  @Override
  public List<byte[]> after(String file, long start, int size, long serverId, boolean checksum) {
    List<byte[]> out = null;
    for (Marker m = peekMarker();
        m != null && !m.skipped() && m.file().equals(file) && m.groupStart() == start;
        m = peekMarker()) {
      takeMarker();
      if (out == null) {
        out = new ArrayList<>(1);
      }
      out.add(ArtificialEvents.gtidList(serverId, m.state(), start + size, checksum));
    }
    return out == null ? List.of() : out;
  }
}
