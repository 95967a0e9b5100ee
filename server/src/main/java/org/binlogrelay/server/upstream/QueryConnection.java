package org.binlogrelay.server.upstream;

import java.io.Closeable;
import java.io.IOException;
import java.net.Socket;
import org.binlogrelay.protocol.query.QueryResponse;

/**
 * A client connection to a MySQL or MariaDB server that only runs statements, no replication: what
 * the relay's schema source is asked through. The handshake, TLS ({@link TlsConfig}, as towards the
 * primary) and authentication are {@link PrimaryConnection}'s; every read of an answer is bounded
 * by the endpoint's connect timeout; every packet by {@code maxPayload}.
 *
 * <p>Thread-safety: one thread runs statements; {@link #close()} may be called from any thread and
 * makes a blocked read fail at once (a caller that gives up on an answer closes the connection).
 */
public final class QueryConnection implements Closeable {
  private final PrimaryConnection connection;

  private QueryConnection(PrimaryConnection connection) {
    this.connection = connection;
  }

  /**
   * Connects {@code socket} (created by the caller, so that it can close it to abort) to {@code
   * endpoint} and authenticates.
   *
   * @param maxPayload the largest packet accepted in answers
   * @throws PrimaryErrorException if the server refused the connection or the credentials
   * @throws IOException if it could not be reached, timed out or broke the protocol
   * @throws RuntimeException if TLS is required and not offered, or the certificate is refused (the
   *     message says which)
   */
  public static QueryConnection open(Socket socket, ServerEndpoint endpoint, int maxPayload)
      throws IOException {
    return new QueryConnection(PrimaryConnection.open(socket, endpoint, maxPayload));
  }

  /** Runs a statement that returns no rows; an ERR is a {@link PrimaryErrorException}. */
  public void execute(String sql) throws IOException {
    connection.execute(sql);
  }

  /** The first column of the first row of a statement's answer (null for SQL NULL or no row). */
  public String queryValue(String sql) throws IOException {
    ResultRows rows = connection.query(sql);
    return rows.isEmpty() ? null : rows.rows().get(0).get(0);
  }

  /**
   * Runs a statement and returns the server's answer to pass on to a client: its OK, its ERR (not
   * thrown), or its result set with column definitions and rows byte for byte.
   *
   * @param maxBytes the most bytes of column definitions and rows accepted
   * @throws AnswerTooLargeException if the result set has more; the connection must be closed
   */
  public QueryResponse forward(String sql, long maxBytes) throws IOException {
    return connection.forward(sql, maxBytes);
  }

  /**
   * The version string of the server's handshake, e.g. {@code 9.7.4} or {@code
   * 5.5.5-10.11.19-MariaDB}.
   */
  public String serverVersion() {
    return connection.serverVersion();
  }

  /** The TLS protocol and cipher suite; {@code null} for plain TCP. */
  public String tls() {
    return connection.tls();
  }

  /** The server's id for this connection. */
  public long connectionId() {
    return connection.connectionId();
  }

  /** Closes the socket; a read blocked on it fails. Idempotent, any thread. */
  @Override
  public void close() throws IOException {
    connection.close();
  }

  @Override
  public String toString() {
    return connection.toString();
  }

  /** A result set over the caller's limit; the rest of it was left unread. */
  public static final class AnswerTooLargeException extends IOException {
    private static final long serialVersionUID = 1L;
    private final long limit;

    public AnswerTooLargeException(String message, long limit) {
      super(message);
      this.limit = limit;
    }

    /** The limit the answer went over, in bytes. */
    public long limit() {
      return limit;
    }
  }
}
