package org.binlogrelay.e2e.serving;

import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import org.binlogrelay.e2e.servers.Credentials;
import org.binlogrelay.e2e.servers.HostAndPort;
import org.binlogrelay.protocol.handshake.CapabilityFlags;
import org.binlogrelay.protocol.query.QueryResponse;
import org.binlogrelay.protocol.testing.WireClient;
import org.binlogrelay.protocol.testing.WireClient.Packet;

/**
 * Test side: a raw replication client, to ask a real server and the relay the very same dump and
 * compare what comes back packet by packet (sequence ids, event bytes, errors). A thin wrapper of
 * the shared {@link WireClient} that logs in as a classic client (result sets end with EOF packets,
 * no connection attributes), over TLS when asked, with the e2e harness's addresses and credentials.
 * Not thread-safe.
 */
final class DumpClient implements AutoCloseable {

  private final WireClient client;

  private DumpClient(WireClient client) {
    this.client = client;
  }

  static DumpClient connect(HostAndPort address, Credentials credentials, boolean tls) {
    return connect(address, credentials, tls, 0);
  }

  /**
   * With a socket receive buffer of {@code receiveBufferBytes} (set before connecting), 0 for the
   * default.
   */
  static DumpClient connect(
      HostAndPort address, Credentials credentials, boolean tls, int receiveBufferBytes) {
    WireClient client =
        WireClient.connect(
            address.host(), address.port(), receiveBufferBytes, Duration.ofSeconds(30));
    try {
      client
          .withoutCapability(CapabilityFlags.CLIENT_DEPRECATE_EOF)
          .withoutCapability(CapabilityFlags.CLIENT_CONNECT_ATTRS)
          .withoutCapability(CapabilityFlags.CLIENT_CONNECT_WITH_DB);
      if (tls) {
        client.startTlsTrustingAll();
      }
      client.login(credentials.user(), credentials.password());
      return new DumpClient(client);
    } catch (RuntimeException e) {
      client.close();
      throw new IllegalStateException("cannot log in to " + address + ": " + e.getMessage(), e);
    }
  }

  /** Runs statements that return OK (SET ...); fails on ERR. */
  DumpClient execute(String... statements) {
    for (String sql : statements) {
      QueryResponse answer = client.query(sql);
      if (!(answer instanceof QueryResponse.Ok)) {
        throw new AssertionError(
            sql
                + " answered "
                + (answer instanceof QueryResponse.Err e ? e.err() : "a result set"));
      }
    }
    return this;
  }

  /**
   * The first column of the single row {@code sql} returns (e.g. {@code
   * SELECT @@global.gtid_purged}).
   */
  String queryValue(String sql) {
    QueryResponse answer = client.query(sql);
    if (!(answer instanceof QueryResponse.Rows rows) || rows.resultSet().rows().size() != 1) {
      throw new AssertionError(sql + " answered " + answer);
    }
    return rows.resultSet().rows().get(0).get(0);
  }

  /**
   * Sends COM_PING and returns the answer (OK, or ERR if the server refuses it); an {@link
   * IOException} if the server closed the connection or did not answer in time.
   */
  Packet ping() throws IOException {
    try {
      client.send(new byte[] {0x0e});
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
    return next();
  }

  /**
   * Sends a dump request and reads the answer until EOF, ERR, the server closing, {@code
   * maxPackets} packets, or {@code idle} without a packet (a blocking dump that caught up).
   */
  List<Packet> dump(byte[] request, int maxPackets, Duration idle) {
    return client.dump(request, maxPackets, idle);
  }

  /** Sends a dump request; read the stream with {@link #next()}. */
  void startDump(byte[] request, Duration readTimeout) {
    client.send(request);
    client.readTimeout(readTimeout);
  }

  /**
   * The next packet of a stream started with {@link #startDump}; an {@link EOFException} once the
   * server closed the connection, a {@link java.net.SocketTimeoutException} if nothing came in
   * time.
   */
  Packet next() throws IOException {
    Packet p;
    try {
      p = client.receive();
    } catch (UncheckedIOException e) {
      throw e.getCause();
    } catch (IllegalStateException e) {
      if ("server closed the connection".equals(e.getMessage())) {
        throw new EOFException(e.getMessage());
      }
      throw e;
    }
    return p;
  }

  @Override
  public void close() {
    client.close();
  }
}
