package org.binlogrelay.e2e.servers;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One throwaway MySQL or MariaDB server of a test: a local process or a container (see {@link
 * ServerBackend}). Binlogs are on, with GTIDs, ROW format and CRC32 checksums ({@link
 * ServerOptions}); the users of {@link Credentials} exist.
 *
 * <p>The SQL methods open a fresh connection per call, so they keep working across {@link
 * #restart()}; they throw {@link ServerException} naming the server and the statement. Lifecycle
 * methods are not meant to be called concurrently on one server.
 */
public interface DatabaseServer extends AutoCloseable {

  /** A name unique in the JVM, such as {@code primary-1}, used in logs and directory names. */
  String name();

  ServerVersion version();

  default ServerFlavor flavor() {
    return version().flavor();
  }

  int serverId();

  /** Where clients on this machine (tests, sysbench, the relay) connect. */
  HostAndPort address();

  /**
   * Where other servers of the same backend connect, e.g. for replication: the same as {@link
   * #address()} for local servers, a network alias for containers.
   */
  HostAndPort peerAddress();

  default Credentials credentials() {
    return Credentials.TEST;
  }

  default Credentials replicationCredentials() {
    return Credentials.REPLICATION;
  }

  /** A Connector/J URL without TLS; bounded connect (5 s) and read (5 min) timeouts. */
  default String jdbcUrl() {
    return "jdbc:mysql://"
        + address()
        + "/?sslMode=DISABLED&allowPublicKeyRetrieval=true"
        + "&connectTimeout=5000&socketTimeout=300000";
  }

  /** A new connection as {@link #credentials()}; the caller closes it. */
  default Connection connect() throws SQLException {
    return DriverManager.getConnection(jdbcUrl(), credentials().user(), credentials().password());
  }

  /** Executes statements in order on one connection, in autocommit mode. */
  default void execute(String... statements) {
    String current = null;
    try (Connection connection = connect();
        Statement statement = connection.createStatement()) {
      for (String sql : statements) {
        current = sql;
        statement.execute(sql);
      }
    } catch (SQLException e) {
      throw new ServerException(
          "SQL failed on "
              + this
              + ": "
              + (current == null ? "(connect)" : current)
              + ": "
              + e.getMessage(),
          e);
    }
  }

  /**
   * Rows of a query, each a map from column label to value as text (null for SQL NULL), in column
   * order.
   */
  default List<Map<String, String>> queryRows(String sql, Object... parameters) {
    try (Connection connection = connect();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        statement.setObject(i + 1, parameters[i]);
      }
      List<Map<String, String>> rows = new ArrayList<>();
      try (ResultSet resultSet = statement.executeQuery()) {
        ResultSetMetaData meta = resultSet.getMetaData();
        while (resultSet.next()) {
          Map<String, String> row = new LinkedHashMap<>();
          for (int column = 1; column <= meta.getColumnCount(); column++) {
            row.put(meta.getColumnLabel(column), resultSet.getString(column));
          }
          rows.add(row);
        }
      }
      return rows;
    } catch (SQLException e) {
      throw new ServerException("Query failed on " + this + ": " + sql + ": " + e.getMessage(), e);
    }
  }

  /** The first column of the only row of a query. */
  default String queryValue(String sql, Object... parameters) {
    List<Map<String, String>> rows = queryRows(sql, parameters);
    if (rows.size() != 1) {
      throw new ServerException(
          "Query on " + this + " returned " + rows.size() + " rows, expected 1: " + sql);
    }
    return rows.get(0).values().iterator().next();
  }

  default long queryLong(String sql, Object... parameters) {
    String value = queryValue(sql, parameters);
    if (value == null) {
      throw new ServerException("Query on " + this + " returned NULL, expected a number: " + sql);
    }
    return Long.parseLong(value);
  }

  /**
   * The GTIDs this server has executed, normalised ({@link HarnessFlavor#normalizeGtidSet}): MySQL
   * {@code @@gtid_executed}, MariaDB {@code @@gtid_current_pos}. Empty when nothing was executed.
   */
  default String executedGtidSet() {
    HarnessFlavor dialect = flavor().dialect();
    String raw = queryValue(dialect.executedGtidSetQuery());
    return dialect.normalizeGtidSet(raw == null ? "" : raw);
  }

  /**
   * A directory on this machine holding the server's binlog files and index ({@code <base>.index}
   * for the current {@link ServerSpec#binlogBaseName()}; after a restart with another base name the
   * old files stay too), for example to read them with {@code mysqlbinlog} or the relay's own
   * parser. For a local server this is the live directory; for a container it is a fresh copy made
   * by this call.
   */
  Path binlogDir();

  /** The last lines of the server's error log (and console output), for failure messages. */
  String errorLogTail(int lines);

  boolean isRunning();

  /**
   * Starts a stopped or killed server again on the same data directory and port, and waits until it
   * answers SQL.
   */
  void start();

  /** A clean shutdown (SIGTERM), bounded in time. */
  void stop();

  /** An unclean stop, SIGKILL: the server gets no chance to flush anything. */
  void kill();

  /** {@link #stop()} if running, then {@link #start()}. */
  default void restart() {
    if (isRunning()) {
      stop();
    }
    start();
  }

  /**
   * What the server runs with now: the spec it was started with, or the one last given to {@link
   * #restart(ServerSpec)}.
   */
  ServerSpec spec();

  /**
   * Restarts the server with changed options, as a DBA edits my.cnf and restarts: {@link #stop()}
   * if running, then {@link #start()} on the same data directory and port with {@code changed},
   * which later starts keep. Only the options may change ({@link ServerSpec#maxBinlogSize()},
   * {@link ServerSpec#binlogBaseName()}, {@link ServerSpec#extraOptions()}); another name, version
   * or server_id is an {@link IllegalArgumentException}. A backend that cannot change a server's
   * command line throws {@link UnsupportedOperationException} without stopping it.
   */
  void restart(ServerSpec changed);

  /** Kills the server if it still runs and deletes all it left behind. Idempotent. */
  @Override
  void close();
}
