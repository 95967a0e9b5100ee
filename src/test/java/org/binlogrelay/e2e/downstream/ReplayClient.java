package org.binlogrelay.e2e.downstream;

import java.time.Duration;
import java.util.List;
import org.binlogrelay.protocol.handshake.CapabilityFlags;
import org.binlogrelay.protocol.testing.SocketTransport;
import org.binlogrelay.protocol.testing.WireClient;

/**
 * A client for replaying transcripts against the relay: TLS, then either password plugin (following
 * auth switches and caching_sha2_password's full path in clear text over TLS), then commands. A
 * thin wrapper of the shared {@link WireClient} whose transport is tapped: every packet either way
 * also goes to a {@link ConnectionTranscriber}, so the relay's answers come out in the transcript
 * format. Not thread-safe.
 */
final class ReplayClient implements AutoCloseable {

  private final ConnectionTranscriber transcriber = new ConnectionTranscriber();
  private final WireClient client;

  ReplayClient(int port) {
    WireClient.Transport socket =
        SocketTransport.open("127.0.0.1", port, 0, Duration.ofSeconds(20));
    client =
        WireClient.over(
                WireClient.tapped(
                    socket,
                    (fromClient, payload) -> {
                      if (fromClient) {
                        transcriber.fromClient(payload);
                      } else {
                        transcriber.fromServer(payload);
                      }
                    }))
            .withoutCapability(CapabilityFlags.CLIENT_CONNECT_ATTRS)
            .withoutCapability(CapabilityFlags.CLIENT_CONNECT_WITH_DB);
  }

  /**
   * Logs in over TLS; returns false (the relay answered ERR, recorded by the transcriber) if
   * refused.
   */
  boolean login(String user, String password) {
    client.startTls(TestCertificates.trustAllClientContext());
    try {
      client.login(user, password);
      return true;
    } catch (WireClient.ServerError refused) {
      return false;
    }
  }

  /**
   * Sends a command and reads its whole answer (a result set for COM_QUERY, one packet otherwise).
   */
  void command(byte[] payload) {
    if ((payload[0] & 0xff) == 0x03) {
      client.send(payload);
      client.answer();
    } else {
      client.command(payload);
    }
  }

  Transcript transcript(String name) {
    return new Transcript(name, List.of(), transcriber.exchanges());
  }

  @Override
  public void close() {
    client.close();
  }
}
