package org.binlogrelay.server.serving;

import java.util.List;

/**
 * What a dump's start adds to its stream as the reader goes: the events the flavour's server sends
 * where the replica's position is reached, which are not in the stored binlog. MariaDB GTID starts
 * watch their filter for the fake GTID_LISTs of {@code send_event_to_slave} ({@link
 * MariadbPositionWatch}); every other start adds nothing ({@link #NONE}). Part of a {@link
 * StartPlan.Stream}, so the stream asks no "is this MariaDB?".
 *
 * <p>Not thread-safe: owned by one stream, on its connection's event loop.
 */
interface PositionWatch {

  /** A start that adds nothing (MySQL, and MariaDB file/position starts). Stateless. */
  PositionWatch NONE =
      new PositionWatch() {
        @Override
        public void beforePoll() {}

        @Override
        public boolean addsEvents() {
          return false;
        }

        @Override
        public List<byte[]> afterSkipped(String file, long to, long serverId, boolean checksum) {
          return List.of();
        }

        @Override
        public List<byte[]> after(
            String file, long start, int size, long serverId, boolean checksum) {
          return List.of();
        }
      };

  /** The stream is about to poll its reader. */
  void beforePoll();

  /**
   * Whether {@link #after} may return events (the batch writer then looks at each event it sends).
   */
  boolean addsEvents();

  /**
   * Whether {@link #after} or {@link #afterSkipped} may still return events from here on; once
   * false it stays false (a shared tail, {@link TailGroup}, serves only streams that add nothing).
   */
  default boolean mayAddEvents() {
    return addsEvents();
  }

  /**
   * The events to send after a run of skipped transactions in {@code file} that ends at {@code to}
   * (event bytes, checksummed if {@code checksum}).
   */
  List<byte[]> afterSkipped(String file, long to, long serverId, boolean checksum);

  /**
   * The events to send after the stored event at {@code start} of {@code file}, {@code size} bytes
   * long.
   */
  List<byte[]> after(String file, long start, int size, long serverId, boolean checksum);
}
