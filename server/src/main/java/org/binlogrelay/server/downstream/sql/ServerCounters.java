package org.binlogrelay.server.downstream.sql;

/**
 * The downstream server's counters that {@code SHOW GLOBAL STATUS} reports. Implemented by the
 * downstream server; thread-safe.
 */
public interface ServerCounters {

  /** When the server started, epoch milliseconds ({@code Uptime}). */
  long startedAtMillis();

  /** Connection attempts since the start, refused ones included ({@code Connections}). */
  long connections();

  /** The most connections open at once ({@code Max_used_connections}). */
  long maxUsedConnections();

  /** Bytes sent to every client, TLS records included ({@code Bytes_sent}). */
  long bytesSent();

  /** Bytes received from every client ({@code Bytes_received}). */
  long bytesReceived();

  /**
   * Connections that failed to log in or were refused before the greeting ({@code
   * Aborted_connects}).
   */
  long abortedConnects();

  /** TLS handshakes started ({@code Ssl_accepts}). */
  long tlsAccepts();

  /** TLS handshakes finished ({@code Ssl_finished_accepts}). */
  long tlsFinishedAccepts();

  /** Whether the server has a TLS certificate. */
  boolean tlsConfigured();

  /** No counters (a responder without a server, in tests): everything 0, started at 0. */
  ServerCounters NONE =
      new ServerCounters() {
        @Override
        public long startedAtMillis() {
          return 0;
        }

        @Override
        public long connections() {
          return 0;
        }

        @Override
        public long maxUsedConnections() {
          return 0;
        }

        @Override
        public long bytesSent() {
          return 0;
        }

        @Override
        public long bytesReceived() {
          return 0;
        }

        @Override
        public long abortedConnects() {
          return 0;
        }

        @Override
        public long tlsAccepts() {
          return 0;
        }

        @Override
        public long tlsFinishedAccepts() {
          return 0;
        }

        @Override
        public boolean tlsConfigured() {
          return false;
        }
      };
}
