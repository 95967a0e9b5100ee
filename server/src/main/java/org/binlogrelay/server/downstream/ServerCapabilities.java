package org.binlogrelay.server.downstream;

import static org.binlogrelay.protocol.handshake.CapabilityFlags.CLIENT_CAN_HANDLE_EXPIRED_PASSWORDS;
import static org.binlogrelay.protocol.handshake.CapabilityFlags.CLIENT_CONNECT_ATTRS;
import static org.binlogrelay.protocol.handshake.CapabilityFlags.CLIENT_CONNECT_WITH_DB;
import static org.binlogrelay.protocol.handshake.CapabilityFlags.CLIENT_DEPRECATE_EOF;
import static org.binlogrelay.protocol.handshake.CapabilityFlags.CLIENT_FOUND_ROWS;
import static org.binlogrelay.protocol.handshake.CapabilityFlags.CLIENT_IGNORE_SIGPIPE;
import static org.binlogrelay.protocol.handshake.CapabilityFlags.CLIENT_IGNORE_SPACE;
import static org.binlogrelay.protocol.handshake.CapabilityFlags.CLIENT_INTERACTIVE;
import static org.binlogrelay.protocol.handshake.CapabilityFlags.CLIENT_LONG_FLAG;
import static org.binlogrelay.protocol.handshake.CapabilityFlags.CLIENT_LONG_PASSWORD;
import static org.binlogrelay.protocol.handshake.CapabilityFlags.CLIENT_MULTI_RESULTS;
import static org.binlogrelay.protocol.handshake.CapabilityFlags.CLIENT_NO_SCHEMA;
import static org.binlogrelay.protocol.handshake.CapabilityFlags.CLIENT_PLUGIN_AUTH;
import static org.binlogrelay.protocol.handshake.CapabilityFlags.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA;
import static org.binlogrelay.protocol.handshake.CapabilityFlags.CLIENT_PROTOCOL_41;
import static org.binlogrelay.protocol.handshake.CapabilityFlags.CLIENT_PS_MULTI_RESULTS;
import static org.binlogrelay.protocol.handshake.CapabilityFlags.CLIENT_RESERVED;
import static org.binlogrelay.protocol.handshake.CapabilityFlags.CLIENT_SECURE_CONNECTION;
import static org.binlogrelay.protocol.handshake.CapabilityFlags.CLIENT_SSL;
import static org.binlogrelay.protocol.handshake.CapabilityFlags.CLIENT_TRANSACTIONS;

/**
 * The capabilities the relay offers. Left out on purpose, because the relay does not implement what
 * they change on the wire: compression, LOAD DATA LOCAL, multi-statements, session tracking (it
 * changes the OK packet), query attributes (it changes COM_QUERY), optional result-set metadata and
 * multi-factor authentication. CLIENT_LONG_PASSWORD (a.k.a. CLIENT_MYSQL) is set, so MariaDB
 * clients do not use MariaDB's extended capabilities. Stateless.
 */
final class ServerCapabilities {
  private ServerCapabilities() {}

  static int of(boolean tls) {
    int caps =
        CLIENT_LONG_PASSWORD
            | CLIENT_FOUND_ROWS
            | CLIENT_LONG_FLAG
            | CLIENT_CONNECT_WITH_DB
            | CLIENT_NO_SCHEMA
            | CLIENT_IGNORE_SPACE
            | CLIENT_PROTOCOL_41
            | CLIENT_INTERACTIVE
            | CLIENT_IGNORE_SIGPIPE
            | CLIENT_TRANSACTIONS
            | CLIENT_RESERVED
            | CLIENT_SECURE_CONNECTION
            | CLIENT_MULTI_RESULTS
            | CLIENT_PS_MULTI_RESULTS
            | CLIENT_PLUGIN_AUTH
            | CLIENT_CONNECT_ATTRS
            | CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA
            | CLIENT_CAN_HANDLE_EXPIRED_PASSWORDS
            | CLIENT_DEPRECATE_EOF;
    return tls ? caps | CLIENT_SSL : caps;
  }
}
