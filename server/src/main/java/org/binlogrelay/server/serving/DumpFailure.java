package org.binlogrelay.server.serving;

/**
 * Why a dump stream ends with an error for the replica: the text the server would send with error
 * 1236 (or the code given), and whether the server would add where it was reading ({@code "; the
 * first event '...' at N, the last event read from ... "}), which both servers do for errors raised
 * once a binlog file is open.
 */
final class DumpFailure extends Exception {
  private static final long serialVersionUID = 1L;

  private final int code;
  private final boolean withCoordinates;

  DumpFailure(int code, String message, boolean withCoordinates) {
    super(message);
    this.code = code;
    this.withCoordinates = withCoordinates;
  }

  /** ER_SOURCE_FATAL_ERROR_READING_BINLOG with the reading coordinates appended. */
  static DumpFailure whileReading(String message) {
    return new DumpFailure(DumpFlavor.ER_FATAL_READING_BINLOG, message, true);
  }

  /** ER_SOURCE_FATAL_ERROR_READING_BINLOG, the text as it is. */
  static DumpFailure plain(String message) {
    return new DumpFailure(DumpFlavor.ER_FATAL_READING_BINLOG, message, false);
  }

  int code() {
    return code;
  }

  boolean withCoordinates() {
    return withCoordinates;
  }
}
