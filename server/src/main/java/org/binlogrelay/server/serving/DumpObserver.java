package org.binlogrelay.server.serving;

import org.binlogrelay.storage.Position;

/**
 * Hears what dump streams hand to their replicas' sockets, for the relay-added latency metric.
 * Called on the connection's event loop after each flush that moved the stream: return at once,
 * never block.
 */
@FunctionalInterface
public interface DumpObserver {
  /** Hears nothing. */
  DumpObserver NONE = (from, to) -> {};

  /**
   * The stream handed the stored events in {@code (from, to]} to the socket.
   *
   * @param from where the previous call ended, {@code null} for the first
   * @param to the end of the last stored event handed over
   */
  void sent(Position from, Position to);
}
