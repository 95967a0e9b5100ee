package org.binlogrelay.protocol.query;

import org.binlogrelay.protocol.packet.ErrPacket;
import org.binlogrelay.protocol.packet.OkPacket;

/** What a server answers to one COM_QUERY: OK, ERR or a result set. Immutable. */
public sealed interface QueryResponse {
  record Ok(OkPacket ok) implements QueryResponse {}

  record Err(ErrPacket err) implements QueryResponse {}

  record Rows(TextResultSet resultSet) implements QueryResponse {}
}
