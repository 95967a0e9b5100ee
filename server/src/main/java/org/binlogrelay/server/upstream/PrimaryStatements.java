package org.binlogrelay.server.upstream;

import java.io.IOException;
import java.net.Socket;
import java.util.List;

/**
 * Runs an administrative statement on the primary over a short-lived connection of its own, with
 * the relay's upstream credentials and TLS settings (for example {@code FLUSH BINARY LOGS} for the
 * admin API's rotate). The connection is authenticated and closed again; it is not a replica
 * session. Thread-safe (no state).
 */
public final class PrimaryStatements {
  private static final int MAX_PACKET = 1 << 20;

  private PrimaryStatements() {}

  /**
   * Runs {@code sql}, which returns no rows.
   *
   * @throws PrimaryErrorException with the primary's code and text if it refused (for example 1227
   *     without RELOAD)
   * @throws IOException if the primary could not be reached within the configured connect timeout
   */
  public static void execute(UpstreamConfig config, String sql) throws IOException {
    try (Socket socket = new Socket();
        PrimaryConnection connection = PrimaryConnection.open(socket, config, MAX_PACKET)) {
      connection.execute(sql);
    }
  }

  /**
   * Runs {@code sql} and returns the first column of its first row, {@code null} if there is no
   * row.
   */
  public static String queryValue(UpstreamConfig config, String sql) throws IOException {
    try (Socket socket = new Socket();
        PrimaryConnection connection = PrimaryConnection.open(socket, config, MAX_PACKET)) {
      List<List<String>> rows = connection.query(sql).rows();
      return rows.isEmpty() || rows.get(0).isEmpty() ? null : rows.get(0).get(0);
    }
  }
}
