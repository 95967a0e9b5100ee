package org.binlogrelay.bench.client;

import java.io.IOException;
import org.binlogrelay.protocol.packet.ErrPacket;

/** The source answered with an ERR packet; the message reads as the mysql client prints it. */
public final class SourceException extends IOException {
  private static final long serialVersionUID = 1L;
  private final int code;

  public SourceException(String context, ErrPacket err) {
    super(context + ": ERROR " + err.code() + " (" + err.sqlState() + "): " + err.message());
    this.code = err.code();
  }

  /** The MySQL error code, e.g. 1236. */
  public int code() {
    return code;
  }
}
