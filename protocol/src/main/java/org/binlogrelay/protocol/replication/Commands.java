package org.binlogrelay.protocol.replication;

import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.bytes.ByteReader;

/** Field checks and readers the replication command records share. Stateless. */
final class Commands {
  private Commands() {}

  static void checkU16(int value, String what) {
    if (value < 0 || value > 0xFFFF) {
      throw new IllegalArgumentException(what + " " + value + " does not fit in 2 bytes");
    }
  }

  static void checkU32(long value, String what) {
    if (value < 0 || value > 0xFFFFFFFFL) {
      throw new IllegalArgumentException(what + " " + value + " does not fit in 4 bytes");
    }
  }

  static void checkFileName(String fileName) {
    if (fileName == null) {
      throw new NullPointerException("fileName");
    }
    if (fileName.indexOf('\0') >= 0) {
      throw new IllegalArgumentException(
          "a binlog file name ends at its first NUL: " + fileName.replace("\0", "\\0"));
    }
  }

  /** Reads the command byte and refuses any other command. */
  static void expectCode(ByteReader in, int code, String name) {
    int actual = in.u8(name + " command");
    if (actual != code) {
      throw new ProtocolException(
          String.format("not %s (0x%02x): command byte 0x%02x", name, code, actual));
    }
  }

  /**
   * The next {@code n} bytes read as C reads a string: up to the first NUL (all {@code n} if there
   * is none), at most {@code max} bytes long; the reader moves past all {@code n}.
   */
  static String cString(ByteReader in, int n, String name, int max) {
    String what = name + " file name";
    in.require(n, what);
    byte[] buf = in.array();
    int start = in.arrayOffset();
    int length = 0;
    while (length < n && buf[start + length] != 0) {
      length++;
    }
    if (length > max) {
      throw new ProtocolException(name + ": file name of " + length + " bytes, limit " + max);
    }
    String value = in.string(length, what);
    in.skip(n - length, what);
    return value;
  }
}
