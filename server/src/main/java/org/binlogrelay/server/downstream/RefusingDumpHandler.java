package org.binlogrelay.server.downstream;

import org.binlogrelay.server.downstream.sql.ErrorMessages;

/**
 * A {@link DumpHandler} for a relay that has nothing to stream yet: it answers every dump request
 * with ER_SOURCE_FATAL_ERROR_READING_BINLOG (1236), which a replica shows in {@code Last_IO_Error}
 * and does not retry, and closes the connection. Stateless and thread-safe.
 */
public final class RefusingDumpHandler implements DumpHandler {

  @Override
  public void dump(DumpRequest request, DumpConnection connection) {
    connection.fail(
        ErrorMessages.fatalReadingBinlog(
            "binlog-relay cannot stream binlogs yet: no dump handler is"
                + " configured ("
                + request.command()
                + " from server_id "
                + request.serverId()
                + ", file '"
                + request.binlogFile()
                + "', position "
                + request.position()
                + ")"));
  }
}
