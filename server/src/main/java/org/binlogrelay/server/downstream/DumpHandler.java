package org.binlogrelay.server.downstream;

/**
 * What serves a replica's binlog stream once it has asked for one. The downstream server
 * authenticates the replica, answers its queries, records its COM_REGISTER_SLAVE, decodes its
 * COM_BINLOG_DUMP[_GTID] into a {@link DumpRequest} and then hands the connection over: from the
 * call on, the handler owns the channel (it writes event packets starting at {@link
 * DumpConnection#nextSequenceId()}, applies back-pressure with the channel's writability, and
 * closes it or lets the replica close it). Idle timeouts no longer apply.
 *
 * <p>Called on the connection's event loop; implementations must not block it. Must be thread-safe:
 * one handler serves every connection.
 */
public interface DumpHandler {

  void dump(DumpRequest request, DumpConnection connection);
}
