package org.binlogrelay.server.downstream.schema;

import org.binlogrelay.protocol.packet.ErrPacket;
import org.binlogrelay.server.downstream.account.Privilege;
import org.binlogrelay.server.downstream.sql.ErrorMessages;

/**
 * The errors a client gets for a statement the relay forwards to its schema source, with the codes
 * and wording MySQL and MariaDB use for a server they reach on a client's behalf (the FEDERATED
 * engine's): 1429 when the schema source cannot be reached or refuses the relay's account, 1430
 * when it does not answer in time or its answer cannot be passed on. A missing grant is MySQL's
 * 1227; what the schema source itself answers with (1146 for a missing table, 1049 for an unknown
 * database) reaches the client unchanged. Stateless.
 */
final class SchemaErrors {
  static final int ER_CONNECT_TO_FOREIGN_DATA_SOURCE = 1429;
  static final int ER_QUERY_ON_FOREIGN_DATA_SOURCE = 1430;

  private SchemaErrors() {}

  /** The account lacks {@link Privilege#SCHEMA_READ}: 1227, as MySQL names a missing privilege. */
  static ErrPacket notGranted() {
    return ErrorMessages.specificAccessDenied(Privilege.SCHEMA_READ.sqlName());
  }

  /** 1429: the schema source could not be reached, refused the login, or TLS failed. */
  static ErrPacket unreachable(String detail) {
    return new ErrPacket(
        ER_CONNECT_TO_FOREIGN_DATA_SOURCE,
        "HY000",
        "Unable to connect to foreign data source: " + detail);
  }

  /** 1430: the schema source failed while answering, answered too late, or too much. */
  static ErrPacket failed(String detail) {
    return new ErrPacket(
        ER_QUERY_ON_FOREIGN_DATA_SOURCE,
        "HY000",
        "There was a problem processing the query on"
            + " the foreign data source. Data source error: "
            + detail);
  }
}
