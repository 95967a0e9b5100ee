package org.binlogrelay.protocol.auth;

/**
 * One client's authentication conversation with one plugin: each packet the client sends goes to
 * {@link #next}, which says whether to send more data, accept or reject. The first packet is the
 * auth response from the handshake (or from the auth switch).
 *
 * <p>A small state machine per connection: not thread-safe, driven by the connection's event loop.
 * Calling {@link #next} after an {@link AuthStep.Accept} or {@link AuthStep.Reject} throws {@link
 * IllegalStateException}.
 */
public interface AuthExchange {
  AuthStep next(byte[] clientPacket);
}
