package org.binlogrelay.server.downstream.sql;

import org.binlogrelay.protocol.packet.ErrPacket;

/**
 * Unwinds statement evaluation with the ERR the client gets; no stack trace (it is an answer, not a
 * bug).
 */
final class StatementRefused extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final transient ErrPacket err;

  StatementRefused(ErrPacket err) {
    super(err.message(), null, false, false);
    this.err = err;
  }

  ErrPacket err() {
    return err;
  }
}
