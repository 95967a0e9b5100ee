package org.binlogrelay.protocol.query;

import java.util.Objects;
import java.util.concurrent.CompletionStage;
import org.binlogrelay.protocol.packet.ErrPacket;
import org.binlogrelay.protocol.packet.OkPacket;

/** What a server answers to one COM_QUERY: OK, ERR or a result set. Immutable. */
public sealed interface QueryResponse {
  record Ok(OkPacket ok) implements QueryResponse {}

  record Err(ErrPacket err) implements QueryResponse {}

  record Rows(TextResultSet resultSet) implements QueryResponse {}

  /** A result set another server sent, passed on as it came ({@link ForwardedResultSet}). */
  record Forwarded(ForwardedResultSet resultSet) implements QueryResponse {}

  /**
   * An answer another thread completes (a statement forwarded to another server): the connection
   * writes it when {@code answer} completes, and reads no other command meanwhile. The stage
   * completes normally, with an answer that is not itself {@code Pending}.
   */
  record Pending(CompletionStage<QueryResponse> answer) implements QueryResponse {
    public Pending {
      Objects.requireNonNull(answer, "answer");
    }
  }
}
