package org.binlogrelay.server.downstream.sql;

import java.util.List;

/**
 * The relay's client connections, for {@code SHOW PROCESSLIST}, {@code
 * information_schema.PROCESSLIST}, {@code KILL} and the thread counters of {@code SHOW STATUS}.
 * Implemented by the downstream server; implementations are thread-safe (any event loop asks about
 * every connection).
 */
public interface Connections {

  /** Every logged-in connection, by id. */
  List<ProcessInfo> list();

  /**
   * Ends connection {@code id} ({@code KILL [CONNECTION]}), or only its statement ({@code KILL
   * QUERY}: statements here finish at once, so only a dump, which is one statement until it ends,
   * is stopped, and its connection with it).
   *
   * @return false if there is no such connection
   */
  boolean kill(long id, boolean queryOnly);

  /** No connections (a responder without a server, in tests). */
  Connections NONE =
      new Connections() {
        @Override
        public List<ProcessInfo> list() {
          return List.of();
        }

        @Override
        public boolean kill(long id, boolean queryOnly) {
          return false;
        }
      };
}
