package org.binlogrelay.server.downstream.schema;

import java.io.IOException;
import java.net.Socket;
import java.util.Locale;
import java.util.Objects;
import org.binlogrelay.protocol.query.QueryResponse;
import org.binlogrelay.server.upstream.QueryConnection;
import org.binlogrelay.server.upstream.ServerEndpoint;

/**
 * A {@link SchemaConnection} to a real server, over the relay's own MySQL client ({@link
 * QueryConnection}). After logging in it sets the session up for forwarding:
 *
 * <pre>
 *   SET NAMES utf8mb4                  the relay's clients talk utf8mb4; character_set_results then follows
 *                                      each client's (NULL for Connector/J), set before its statement
 *   SET SESSION TRANSACTION READ ONLY  a second fence behind the relay's grammar: the session cannot write
 *   SELECT @@SESSION.sql_mode          NO_BACKSLASH_ESCAPES changes how strings are quoted
 * </pre>
 *
 * Thread-safety as {@link SchemaConnection}.
 */
final class ServerSchemaConnection implements SchemaConnection {
  /** What {@code SET NAMES} left {@code character_set_results} at. */
  static final String DEFAULT_RESULTS_CHARSET = "utf8mb4";

  private final QueryConnection connection;
  private final boolean backslashEscapes;

  /** The session's character_set_results: a name, or null for none. */
  private String resultsCharset = DEFAULT_RESULTS_CHARSET;

  private ServerSchemaConnection(QueryConnection connection, boolean backslashEscapes) {
    this.connection = connection;
    this.backslashEscapes = backslashEscapes;
  }

  /** Opens connections to {@code endpoint} accepting packets up to {@code maxPayload} bytes. */
  static SchemaConnection.Opener opener(ServerEndpoint endpoint, int maxPayload) {
    return socket -> open(socket, endpoint, maxPayload);
  }

  private static SchemaConnection open(Socket socket, ServerEndpoint endpoint, int maxPayload)
      throws IOException {
    QueryConnection connection = QueryConnection.open(socket, endpoint, maxPayload);
    try {
      connection.execute("SET NAMES utf8mb4");
      connection.execute("SET SESSION TRANSACTION READ ONLY");
      String mode = connection.queryValue("SELECT @@SESSION.sql_mode");
      boolean escapes =
          mode == null || !mode.toUpperCase(Locale.ROOT).contains("NO_BACKSLASH_ESCAPES");
      return new ServerSchemaConnection(connection, escapes);
    } catch (IOException | RuntimeException e) {
      connection.close();
      throw e;
    }
  }

  @Override
  public boolean backslashEscapes() {
    return backslashEscapes;
  }

  @Override
  public void resultsCharset(String charset) throws IOException {
    if (Objects.equals(charset, resultsCharset)) {
      return;
    }
    if (charset != null && !charset.matches("[A-Za-z0-9_]{1,64}")) {
      throw new IllegalArgumentException("not a character set name: " + charset);
    }
    connection.execute("SET character_set_results = " + (charset == null ? "NULL" : charset));
    resultsCharset = charset;
  }

  @Override
  public QueryResponse forward(String sql, long maxBytes) throws IOException {
    return connection.forward(sql, maxBytes);
  }

  @Override
  public String describe() {
    return connection.serverVersion()
        + (connection.tls() != null ? ", " + connection.tls() : ", no TLS");
  }

  @Override
  public void close() {
    try {
      connection.close();
    } catch (IOException e) {
      // closing a socket that failed already: nothing more to do
    }
  }
}
