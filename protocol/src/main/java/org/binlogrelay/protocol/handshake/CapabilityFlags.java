package org.binlogrelay.protocol.handshake;

import java.util.ArrayList;
import java.util.List;

/**
 * The client/server capability bits of the MySQL protocol ({@code include/mysql_com.h}), exchanged
 * in {@link HandshakeV10} and {@link HandshakeResponse41}. The connection uses the bits both sides
 * set.
 *
 * <p>Constants only; thread-safe.
 */
public final class CapabilityFlags {
  public static final int CLIENT_LONG_PASSWORD = 1;
  public static final int CLIENT_FOUND_ROWS = 1 << 1;
  public static final int CLIENT_LONG_FLAG = 1 << 2;
  public static final int CLIENT_CONNECT_WITH_DB = 1 << 3;
  public static final int CLIENT_NO_SCHEMA = 1 << 4;
  public static final int CLIENT_COMPRESS = 1 << 5;
  public static final int CLIENT_ODBC = 1 << 6;
  public static final int CLIENT_LOCAL_FILES = 1 << 7;
  public static final int CLIENT_IGNORE_SPACE = 1 << 8;
  public static final int CLIENT_PROTOCOL_41 = 1 << 9;
  public static final int CLIENT_INTERACTIVE = 1 << 10;
  public static final int CLIENT_SSL = 1 << 11;
  public static final int CLIENT_IGNORE_SIGPIPE = 1 << 12;
  public static final int CLIENT_TRANSACTIONS = 1 << 13;
  public static final int CLIENT_RESERVED = 1 << 14;

  /** Also called CLIENT_RESERVED2: a 1-byte length before the auth response. */
  public static final int CLIENT_SECURE_CONNECTION = 1 << 15;

  public static final int CLIENT_MULTI_STATEMENTS = 1 << 16;
  public static final int CLIENT_MULTI_RESULTS = 1 << 17;
  public static final int CLIENT_PS_MULTI_RESULTS = 1 << 18;
  public static final int CLIENT_PLUGIN_AUTH = 1 << 19;
  public static final int CLIENT_CONNECT_ATTRS = 1 << 20;
  public static final int CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA = 1 << 21;
  public static final int CLIENT_CAN_HANDLE_EXPIRED_PASSWORDS = 1 << 22;
  public static final int CLIENT_SESSION_TRACK = 1 << 23;
  public static final int CLIENT_DEPRECATE_EOF = 1 << 24;
  public static final int CLIENT_OPTIONAL_RESULTSET_METADATA = 1 << 25;
  public static final int CLIENT_ZSTD_COMPRESSION_ALGORITHM = 1 << 26;
  public static final int CLIENT_QUERY_ATTRIBUTES = 1 << 27;
  public static final int MULTI_FACTOR_AUTHENTICATION = 1 << 28;
  public static final int CLIENT_CAPABILITY_EXTENSION = 1 << 29;
  public static final int CLIENT_SSL_VERIFY_SERVER_CERT = 1 << 30;
  public static final int CLIENT_REMEMBER_OPTIONS = 1 << 31;

  private static final String[] NAMES = {
    "LONG_PASSWORD",
    "FOUND_ROWS",
    "LONG_FLAG",
    "CONNECT_WITH_DB",
    "NO_SCHEMA",
    "COMPRESS",
    "ODBC",
    "LOCAL_FILES",
    "IGNORE_SPACE",
    "PROTOCOL_41",
    "INTERACTIVE",
    "SSL",
    "IGNORE_SIGPIPE",
    "TRANSACTIONS",
    "RESERVED",
    "SECURE_CONNECTION",
    "MULTI_STATEMENTS",
    "MULTI_RESULTS",
    "PS_MULTI_RESULTS",
    "PLUGIN_AUTH",
    "CONNECT_ATTRS",
    "PLUGIN_AUTH_LENENC_CLIENT_DATA",
    "CAN_HANDLE_EXPIRED_PASSWORDS",
    "SESSION_TRACK",
    "DEPRECATE_EOF",
    "OPTIONAL_RESULTSET_METADATA",
    "ZSTD_COMPRESSION_ALGORITHM",
    "QUERY_ATTRIBUTES",
    "MULTI_FACTOR_AUTHENTICATION",
    "CAPABILITY_EXTENSION",
    "SSL_VERIFY_SERVER_CERT",
    "REMEMBER_OPTIONS"
  };

  private CapabilityFlags() {}

  /** True if every bit of {@code flag} is set in {@code capabilities}. */
  public static boolean has(int capabilities, int flag) {
    return (capabilities & flag) == flag;
  }

  /** The names of the bits set, e.g. {@code [PROTOCOL_41, SSL]}, for logs and transcripts. */
  public static List<String> names(int capabilities) {
    List<String> names = new ArrayList<>();
    for (int bit = 0; bit < 32; bit++) {
      if ((capabilities & (1 << bit)) != 0) {
        names.add(NAMES[bit]);
      }
    }
    return names;
  }
}
