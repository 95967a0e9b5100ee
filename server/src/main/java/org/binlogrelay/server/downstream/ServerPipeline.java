package org.binlogrelay.server.downstream;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.protocol.packet.PacketEncoder;

/**
 * The pipeline of one downstream connection, and how it changes with the connection's phase:
 *
 * <pre>
 *   login:    gate | frame (one packet)     | [tls | frame-tls] | encoder | idle(connect timeout) | connection
 *   auth:     gate | [tls] | decoder | aggregator               | encoder | idle(connect timeout) | connection
 *   commands: gate | [tls] | decoder | aggregator               | encoder | idle(wait timeout)    | command
 *   dump:     gate | [tls] | decoder | aggregator               | encoder |                       | command (dumping)
 * </pre>
 *
 * A {@link TrafficCounter} comes before the gate in every phase (bytes on the wire, for SHOW
 * STATUS).
 *
 * <p>Stateless apart from the shared {@link ServerState}; the initializer is {@code @Sharable} by
 * {@link ChannelInitializer}'s contract.
 */
final class ServerPipeline extends ChannelInitializer<Channel> {
  static final String TRAFFIC = "traffic";
  static final String GATE = "gate";
  static final String FRAME = "frame";
  static final String FRAME_TLS = "frame-tls";
  static final String TLS = "tls";
  static final String DECODER = "decoder";
  static final String AGGREGATOR = "aggregator";
  static final String ENCODER = "encoder";
  static final String IDLE = "idle";
  static final String CONNECTION = "connection";
  static final String COMMAND = "command";

  private final ServerState server;
  private final ConnectionGate gate;
  private final PacketEncoder encoder = new PacketEncoder();

  ServerPipeline(ServerState server) {
    this.server = server;
    this.gate = new ConnectionGate(server);
  }

  @Override
  protected void initChannel(Channel ch) {
    ChannelPipeline p = ch.pipeline();
    p.addLast(TRAFFIC, new TrafficCounter(server.stats));
    p.addLast(GATE, gate);
    p.addLast(FRAME, new HandshakeFrameDecoder(server.maxHandshakePacket()));
    p.addLast(ENCODER, encoder);
    p.addLast(
        IDLE,
        new IdleStateHandler(
            server.config.connectTimeout().toMillis(), 0, 0, TimeUnit.MILLISECONDS));
    p.addLast(CONNECTION, new ConnectionPhaseHandler(server));
  }

  /** After login: the idle limit becomes the wait timeout and commands are served. */
  static void enterCommandPhase(
      ChannelPipeline p, ServerState server, ClientConnection connection) {
    p.replace(
        IDLE,
        IDLE,
        new IdleStateHandler(server.config.idleTimeout().toMillis(), 0, 0, TimeUnit.MILLISECONDS));
    p.replace(CONNECTION, COMMAND, new CommandPhaseHandler(server, connection));
  }
}
