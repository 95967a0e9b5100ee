package org.binlogrelay.server.downstream.schema;

import java.io.Closeable;
import java.io.IOException;
import java.net.Socket;
import org.binlogrelay.protocol.query.QueryResponse;

/**
 * One connection to the schema source, ready to run forwarded statements: its session is set up
 * (character set, read-only) and the relay knows how to quote strings for it. Thread-safety: one
 * thread forwards; {@link #close()} from any thread makes a blocked read fail.
 */
interface SchemaConnection extends Closeable {

  /**
   * Opens connections; {@link #open} connects the socket it is given, so that closing it aborts the
   * attempt.
   */
  @FunctionalInterface
  interface Opener {
    /**
     * @throws IOException or a RuntimeException if the server cannot be reached, refuses the
     *     account, or TLS fails
     */
    SchemaConnection open(Socket socket) throws IOException;
  }

  /**
   * Whether the session reads a backslash in a string as an escape (its sql_mode lacks
   * NO_BACKSLASH_ESCAPES).
   */
  boolean backslashEscapes();

  /**
   * Makes the session answer in {@code charset} ({@code character_set_results}), the client's: its
   * name, or null for none (answers in each column's own character set, what Connector/J asks for).
   * Sets it only if it differs.
   */
  void resultsCharset(String charset) throws IOException;

  /**
   * Runs {@code sql} and returns the server's answer as it came.
   *
   * @throws org.binlogrelay.server.upstream.QueryConnection.AnswerTooLargeException if it is over
   *     {@code maxBytes}
   */
  QueryResponse forward(String sql, long maxBytes) throws IOException;

  /** The server's version and the connection's TLS, for the log. */
  String describe();

  /** Idempotent; any thread. */
  @Override
  void close();
}
