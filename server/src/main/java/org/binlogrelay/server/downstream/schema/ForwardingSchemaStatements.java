package org.binlogrelay.server.downstream.schema;

import java.util.Objects;
import java.util.Optional;
import org.binlogrelay.protocol.query.MetadataStatement;
import org.binlogrelay.protocol.query.QueryResponse;
import org.binlogrelay.server.downstream.account.Privilege;
import org.binlogrelay.server.downstream.sql.ClientContext;
import org.binlogrelay.server.downstream.sql.ErrorMessages;
import org.binlogrelay.server.downstream.sql.SchemaStatements;
import org.binlogrelay.server.downstream.sql.SessionVariables;

/**
 * Statements that read table schemas, answered by the relay's {@link SchemaSource}, for accounts
 * granted {@link Privilege#SCHEMA_READ} only:
 *
 * <pre>
 *   no SCHEMA_READ                                 1227 Access denied; you need ... SCHEMA_READ privilege(s)
 *   unqualified name, no current database          1046 No database selected
 *   otherwise                                      forwarded: the schema source's answer, or 1429 / 1430
 * </pre>
 *
 * Thread-safe; never blocks (the forwarded answer is {@link QueryResponse.Pending}).
 */
public final class ForwardingSchemaStatements implements SchemaStatements {
  private final SchemaSource source;
  private final String defaultResultsCharset;

  /**
   * Clients that did not set {@code character_set_results} get answers in utf8mb4, the relay's
   * character set.
   */
  public ForwardingSchemaStatements(SchemaSource source) {
    this.source = Objects.requireNonNull(source, "source");
    this.defaultResultsCharset = ServerSchemaConnection.DEFAULT_RESULTS_CHARSET;
  }

  @Override
  public QueryResponse answer(
      MetadataStatement statement, ClientContext client, SessionVariables session) {
    if (!client.has(Privilege.SCHEMA_READ)) {
      return new QueryResponse.Err(SchemaErrors.notGranted());
    }
    if (statement.usesCurrentDatabase() && session.database() == null) {
      return new QueryResponse.Err(ErrorMessages.noDatabaseSelected());
    }
    Optional<SessionVariables.Setting> set = session.system("character_set_results");
    String resultsCharset =
        set.isPresent() ? set.get().value() : defaultResultsCharset; // value null: NULL
    return new QueryResponse.Pending(source.forward(statement, session.database(), resultsCharset));
  }
}
