package org.binlogrelay.server.downstream.sql;

import org.binlogrelay.protocol.packet.ErrPacket;
import org.binlogrelay.protocol.query.MetadataStatement;
import org.binlogrelay.protocol.query.QueryResponse;

/**
 * Answers the statements that read table schemas ({@link MetadataStatement}: {@code SHOW CREATE
 * TABLE}, {@code SHOW FULL TABLES}, a {@code SELECT} of {@code information_schema.COLUMNS}, ...),
 * which the relay cannot answer from its binlogs. {@link QueryResponder} hands every such statement
 * here and nothing else; the relay's schema source (package {@code server.downstream.schema})
 * forwards them; without one, {@link #off} refuses them.
 *
 * <p>Implementations are thread-safe and never block: an answer that takes time is a {@link
 * QueryResponse.Pending}.
 */
public interface SchemaStatements {

  /** ER_NOT_SUPPORTED_YET. */
  int ER_NOT_SUPPORTED_YET = 1235;

  /**
   * Without a schema source: every metadata statement gets ER_NOT_SUPPORTED_YET naming the option.
   *
   * @param product "MySQL" or "MariaDB", as the server names itself in the message ({@link
   *     SqlFlavor#productName()})
   */
  static SchemaStatements off(String product) {
    QueryResponse refusal = new QueryResponse.Err(notConfigured(product));
    return (statement, client, session) -> refusal;
  }

  /**
   * The answer to {@code statement} from {@code client}, whose session is {@code session} (its
   * current database fills in unqualified names). Never throws for anything a client can send.
   */
  QueryResponse answer(MetadataStatement statement, ClientContext client, SessionVariables session);

  /**
   * ER_NOT_SUPPORTED_YET (1235, SQL state 42000) in the server's wording, naming what to configure.
   *
   * @param product "MySQL" or "MariaDB", as the server names itself in this message
   */
  static ErrPacket notConfigured(String product) {
    return new ErrPacket(
        ER_NOT_SUPPORTED_YET,
        "42000",
        "This version of "
            + product
            + " doesn't yet support"
            + " 'reading table schemas through binlog-relay without a schema source (start the relay with"
            + " --schema-source)'");
  }
}
