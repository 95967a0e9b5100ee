package org.binlogrelay.server.downstream;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.timeout.IdleStateEvent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Optional;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.protocol.handshake.CapabilityFlags;
import org.binlogrelay.protocol.packet.ErrPacket;
import org.binlogrelay.protocol.packet.MysqlPacket;
import org.binlogrelay.protocol.packet.OkPacket;
import org.binlogrelay.protocol.query.QueryResponse;
import org.binlogrelay.server.downstream.account.Privilege;
import org.binlogrelay.server.downstream.sql.ErrorMessages;
import org.binlogrelay.server.downstream.sql.ReplicaInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The command phase: one command packet in, its answer out. COM_QUIT closes; COM_PING, COM_INIT_DB
 * and COM_RESET_CONNECTION answer OK; COM_QUERY goes to the {@link
 * org.binlogrelay.server.downstream.sql.QueryResponder}; COM_REGISTER_SLAVE is checked (REPLICATION
 * SLAVE, else 1045 as MySQL and MariaDB answer it) and recorded; COM_BINLOG_DUMP and
 * COM_BINLOG_DUMP_GTID are checked (else 1227), decoded into a {@link DumpRequest} and handed to
 * the {@link DumpHandler}, after which the connection is the dump's: the idle timeout is removed
 * and later client packets are dropped. Every other command gets ER_UNKNOWN_COM_ERROR (1047), never
 * a disconnect.
 *
 * <p>A statement whose answer another thread completes ({@link QueryResponse.Pending}: one
 * forwarded to the schema source) does not hold up the event loop: reading pauses, commands already
 * received are held (at most {@link #MAX_HELD_COMMANDS}, else ER_NET_PACKETS_OUT_OF_ORDER and a
 * close; a server answers one command after the other), and once the answer is written reading
 * resumes with them.
 *
 * <p>A silent connection is closed after the wait timeout with ER_CLIENT_INTERACTION_TIMEOUT
 * (4031), as MySQL 8.0.24+ does; a packet over the size limit gets ER_NET_PACKET_TOO_LARGE (1153)
 * and a close.
 *
 * <p>One instance per channel; event loop only.
 */
final class CommandPhaseHandler extends SimpleChannelInboundHandler<MysqlPacket> {
  private static final Logger LOG = LoggerFactory.getLogger(CommandPhaseHandler.class);
  private static final int ER_UNKNOWN_ERROR = 1105;
  private static final int ER_NET_PACKETS_OUT_OF_ORDER = 1156;

  /**
   * Commands a client may send while an answer is pending; they are held and run in order after it.
   */
  static final int MAX_HELD_COMMANDS = 64;

  private final ServerState server;
  private final ClientConnection connection;
  private boolean dumping;

  /**
   * An answer is pending ({@link QueryResponse.Pending}): reading is paused and commands that
   * arrive are held.
   */
  private boolean waiting;

  private final ArrayDeque<HeldCommand> held = new ArrayDeque<>();

  /** A command that arrived while an answer was pending. */
  private record HeldCommand(byte[] payload, int reply) {}

  CommandPhaseHandler(ServerState server, ClientConnection connection) {
    this.server = server;
    this.connection = connection;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, MysqlPacket packet) {
    if (dumping) {
      LOG.debug(
          "Connection {}: dropped a {}-byte packet sent during a dump",
          connection.connectionId,
          packet.payload().readableBytes());
      return;
    }
    byte[] payload = Packets.bytes(packet);
    int reply = packet.nextSequenceId();
    if (waiting) {
      if (held.size() >= MAX_HELD_COMMANDS) {
        LOG.info(
            "Connection {}: more than {} commands sent before the answer to the last; closing",
            connection.connectionId,
            MAX_HELD_COMMANDS);
        Packets.failAndClose(
            ctx,
            reply,
            new ErrPacket(ER_NET_PACKETS_OUT_OF_ORDER, "08S01", "Got packets out of order"));
        return;
      }
      held.add(new HeldCommand(payload, reply));
      return;
    }
    command(ctx, payload, reply);
  }

  private void command(ChannelHandlerContext ctx, byte[] payload, int reply) {
    if (payload.length == 0) {
      respond(ctx, reply, ErrorMessages.unknownCommand().encode());
      return;
    }
    int code = payload[0] & 0xff;
    Command command = Command.of(code);
    if (command == null) {
      respond(ctx, reply, ErrorMessages.unknownCommand().encode());
      return;
    }
    switch (command) {
      case COM_QUIT:
        ctx.close();
        return;
      case COM_PING:
        respond(ctx, reply, ok());
        return;
      case COM_INIT_DB:
        connection.session.database(
            new String(payload, 1, payload.length - 1, StandardCharsets.UTF_8));
        connection.process.idle(connection.session.database());
        respond(ctx, reply, ok());
        return;
      case COM_RESET_CONNECTION:
        connection.session.reset();
        connection.process.idle(null);
        respond(ctx, reply, ok());
        return;
      case COM_QUERY:
        query(ctx, reply, new String(payload, 1, payload.length - 1, StandardCharsets.UTF_8));
        return;
      case COM_REGISTER_SLAVE:
        register(ctx, reply, payload);
        return;
      case COM_BINLOG_DUMP:
      case COM_BINLOG_DUMP_GTID:
        dump(ctx, reply, payload);
        return;
      default:
        LOG.debug("Connection {}: {} is not supported", connection.connectionId, command);
        respond(ctx, reply, ErrorMessages.unknownCommand().encode());
    }
  }

  /** An OK carrying the session's status flags (AUTOCOMMIT, IN_TRANS). */
  private byte[] ok() {
    return new OkPacket(0, 0, connection.session.statusFlags(), 0, "").encode();
  }

  private void query(ChannelHandlerContext ctx, int reply, String sql) {
    connection.process.query(sql, connection.session.database());
    QueryResponse answer;
    try {
      answer = server.responder.respond(sql, connection.client, connection.session);
    } catch (RuntimeException e) {
      connection.process.idle(connection.session.database());
      throw e;
    }
    if (answer instanceof QueryResponse.Pending pending) {
      waiting = true;
      ctx.channel().config().setAutoRead(false);
      pending
          .answer()
          .whenComplete(
              (done, failure) ->
                  ctx.executor().execute(() -> resume(ctx, reply, sql, done, failure)));
      return;
    }
    write(ctx, reply, sql, answer);
  }

  /**
   * On the event loop, once a pending answer is there: writes it, reads again and runs the held
   * commands.
   */
  private void resume(
      ChannelHandlerContext ctx, int reply, String sql, QueryResponse answer, Throwable failure) {
    waiting = false;
    if (!ctx.channel().isActive()) {
      held.clear();
      connection.process.idle(connection.session.database());
      return;
    }
    if (failure != null || answer == null || answer instanceof QueryResponse.Pending) {
      LOG.warn(
          "Connection {}: no answer to {}: {}",
          connection.connectionId,
          sql,
          failure == null ? answer : failure);
      answer =
          new QueryResponse.Err(
              new ErrPacket(
                  ER_UNKNOWN_ERROR,
                  "HY000",
                  "Unknown error: the relay has no" + " answer to this statement (see its log)"));
    }
    write(ctx, reply, sql, answer);
    ctx.channel().config().setAutoRead(true);
    while (!waiting && !held.isEmpty()) {
      HeldCommand next = held.poll();
      if (dumping) {
        LOG.debug(
            "Connection {}: dropped a {}-byte packet sent during a dump",
            connection.connectionId,
            next.payload().length);
      } else {
        command(ctx, next.payload(), next.reply());
      }
    }
  }

  /** Writes a statement's answer; the connection is then idle in the process list. */
  private void write(ChannelHandlerContext ctx, int reply, String sql, QueryResponse answer) {
    connection.process.idle(connection.session.database());
    boolean deprecateEof =
        CapabilityFlags.has(connection.capabilities, CapabilityFlags.CLIENT_DEPRECATE_EOF);
    if (answer instanceof QueryResponse.Rows rows) {
      Packets.writeAll(
          ctx, reply, rows.resultSet().encode(deprecateEof, connection.session.statusFlags()));
    } else if (answer instanceof QueryResponse.Forwarded rows) {
      Packets.writeAll(
          ctx, reply, rows.resultSet().encode(deprecateEof, connection.session.statusFlags()));
    } else if (answer instanceof QueryResponse.Ok ok) {
      respond(ctx, reply, ok.ok().encode());
    } else if (answer instanceof QueryResponse.Err err) {
      LOG.debug(
          "Connection {}: {} -> ERR {} {}",
          connection.connectionId,
          sql,
          err.err().code(),
          err.err().message());
      respond(ctx, reply, err.err().encode());
    }
    if (connection.session.closeRequested()) {
      ctx.close();
    }
  }

  private void register(ChannelHandlerContext ctx, int reply, byte[] payload) {
    if (!connection.client.has(Privilege.REPLICATION_SLAVE)) {
      respond(
          ctx,
          reply,
          ErrorMessages.accessDenied(
                  connection.client.user(), connection.client.accountHost(), true)
              .encode());
      return;
    }
    ReplicaRegistration registration;
    try {
      registration = ReplicaRegistration.decode(payload);
    } catch (ProtocolException e) {
      LOG.info(
          "Connection {}: malformed COM_REGISTER_SLAVE: {}",
          connection.connectionId,
          e.getMessage());
      Packets.failAndClose(ctx, reply, ErrorMessages.badHandshake());
      return;
    }
    connection.registration = registration;
    String uuid =
        connection
            .session
            .userText("replica_uuid")
            .or(() -> connection.session.userText("slave_uuid"))
            .orElse("");
    server.replicas.register(
        connection.connectionId,
        new ReplicaInfo(
            registration.serverId(),
            registration.host(),
            registration.port(),
            registration.sourceId(),
            uuid));
    ctx.channel()
        .closeFuture()
        .addListener(f -> server.replicas.unregister(connection.connectionId));
    LOG.info(
        "Connection {}: replica server_id {} registered from {} (report_host '{}', report_port {})",
        connection.connectionId,
        registration.serverId(),
        connection.client.peerAddress(),
        registration.host(),
        registration.port());
    respond(ctx, reply, ok());
  }

  private void dump(ChannelHandlerContext ctx, int reply, byte[] payload) {
    if (!connection.client.has(Privilege.REPLICATION_SLAVE)) {
      respond(ctx, reply, ErrorMessages.specificAccessDenied("REPLICATION SLAVE").encode());
      return;
    }
    DumpRequest request;
    try {
      request = DumpRequest.decode(payload);
      if (request.startGtids() == null) {
        Optional<GtidSet> state = server.config.dialect().connectState(connection.session);
        if (state.isPresent()) {
          request = request.withStartGtids(state.get());
        }
      }
    } catch (ProtocolException | IllegalArgumentException e) {
      LOG.info(
          "Connection {}: refused a malformed dump request: {}",
          connection.connectionId,
          e.getMessage());
      Packets.failAndClose(
          ctx,
          reply,
          ErrorMessages.fatalReadingBinlog("Malformed dump request: " + e.getMessage()));
      return;
    }
    dumping = true;
    connection.process.dump(request.command() == Command.COM_BINLOG_DUMP_GTID);
    if (ctx.pipeline().get(ServerPipeline.IDLE) != null) {
      ctx.pipeline().remove(ServerPipeline.IDLE);
    }
    LOG.info(
        "Connection {}: {} from server_id {} at {}{}: file '{}', position {}{}",
        connection.connectionId,
        request.command(),
        request.serverId(),
        connection.client.peerAddress(),
        connection.secure ? " over TLS" : "",
        request.binlogFile(),
        request.position(),
        request.startGtids() == null ? "" : ", GTIDs '" + request.startGtids() + "'");
    server.dumpHandler.dump(
        request,
        new DumpConnection(
            ctx.channel(), reply, connection.client, connection.session, connection.registration));
  }

  private static void respond(ChannelHandlerContext ctx, int sequenceId, byte[] payload) {
    Packets.write(ctx, sequenceId, payload);
    ctx.flush();
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
    if (evt instanceof IdleStateEvent && !dumping) {
      LOG.info(
          "Connection {}: idle for {} s; closing",
          connection.connectionId,
          server.config.idleTimeout().toSeconds());
      Packets.failAndClose(ctx, 0, ErrorMessages.clientInteractionTimeout());
      return;
    }
    super.userEventTriggered(ctx, evt);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    Throwable root =
        cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
    if (root instanceof TooLongFrameException || cause instanceof TooLongFrameException) {
      LOG.info("Connection {}: {}", connection.connectionId, root.getMessage());
      Packets.failAndClose(ctx, 1, ErrorMessages.packetTooLarge());
      return;
    }
    LOG.info("Connection {} failed: {}", connection.connectionId, root.toString());
    ctx.close();
  }
}
