package org.binlogrelay.server.downstream;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import java.util.Objects;
import java.util.Optional;
import org.binlogrelay.protocol.packet.ErrPacket;
import org.binlogrelay.protocol.packet.MysqlPacket;
import org.binlogrelay.server.downstream.sql.ClientContext;
import org.binlogrelay.server.downstream.sql.SessionVariables;

/**
 * A replica connection handed to a {@link DumpHandler}: the channel (its pipeline frames {@link
 * MysqlPacket}s on write), the sequence id of the first answer packet, who the replica is, what it
 * registered as, and the session variables it set before dumping ({@code @master_binlog_checksum},
 * {@code @master_heartbeat_period}, {@code @slave_uuid}/{@code @replica_uuid},
 * {@code @mariadb_slave_capability} ...).
 *
 * <p>Use it on the channel's event loop only; the session variables are not thread-safe.
 */
public final class DumpConnection {
  private final Channel channel;
  private final int nextSequenceId;
  private final ClientContext client;
  private final SessionVariables variables;
  private final ReplicaRegistration registration;

  DumpConnection(
      Channel channel,
      int nextSequenceId,
      ClientContext client,
      SessionVariables variables,
      ReplicaRegistration registration) {
    this.channel = Objects.requireNonNull(channel, "channel");
    this.nextSequenceId = nextSequenceId;
    this.client = Objects.requireNonNull(client, "client");
    this.variables = Objects.requireNonNull(variables, "variables");
    this.registration = registration;
  }

  public Channel channel() {
    return channel;
  }

  /** The sequence id the first packet of the answer must carry (the request's plus one). */
  public int nextSequenceId() {
    return nextSequenceId;
  }

  public ClientContext client() {
    return client;
  }

  public SessionVariables variables() {
    return variables;
  }

  /** The replica's COM_REGISTER_SLAVE, if it sent one (mysqlbinlog does not). */
  public Optional<ReplicaRegistration> registration() {
    return Optional.ofNullable(registration);
  }

  /** Sends {@code err} as the answer and closes the connection once it is written. */
  public void fail(ErrPacket err) {
    channel
        .writeAndFlush(new MysqlPacket(nextSequenceId, Unpooled.wrappedBuffer(err.encode())))
        .addListener(ChannelFutureListener.CLOSE);
  }
}
