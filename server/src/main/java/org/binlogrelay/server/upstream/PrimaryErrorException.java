package org.binlogrelay.server.upstream;

import java.io.IOException;
import org.binlogrelay.protocol.packet.ErrPacket;

/**
 * The primary answered with an ERR packet: its error number, SQL state and text, kept as the server
 * wrote them so that a DBA recognises them (for example {@code 1236} when the binlog the relay
 * needs was purged).
 */
public final class PrimaryErrorException extends IOException {
  private static final long serialVersionUID = 1L;

  /** ER_SOURCE_FATAL_ERROR_READING_BINLOG (MariaDB: ER_MASTER_FATAL_ERROR_READING_BINLOG). */
  public static final int FATAL_ERROR_READING_BINLOG = 1236;

  /** ER_NO_BINARY_LOGGING: the primary does not write a binlog. */
  public static final int NO_BINARY_LOGGING = 1381;

  /**
   * ER_UNKNOWN_SYSTEM_VARIABLE: e.g. a semi-sync variable of a plugin the primary has not loaded.
   */
  public static final int UNKNOWN_SYSTEM_VARIABLE = 1193;

  private final int code;
  private final String sqlState;
  private final String serverMessage;

  PrimaryErrorException(String context, int code, String sqlState, String serverMessage) {
    this(context, code, sqlState, serverMessage, "");
  }

  /**
   * @param hint what the relay adds after the server's text (what it means, what to do); may be
   *     empty
   */
  PrimaryErrorException(
      String context, int code, String sqlState, String serverMessage, String hint) {
    super(context + ": error " + code + " (" + sqlState + "): " + serverMessage + hint);
    this.code = code;
    this.sqlState = sqlState;
    this.serverMessage = serverMessage;
  }

  static PrimaryErrorException of(String context, ErrPacket err) {
    return new PrimaryErrorException(context, err.code(), err.sqlState(), err.message());
  }

  /** The server's error number. */
  public int code() {
    return code;
  }

  public String sqlState() {
    return sqlState;
  }

  /** The server's own text, unchanged. */
  public String serverMessage() {
    return serverMessage;
  }
}
