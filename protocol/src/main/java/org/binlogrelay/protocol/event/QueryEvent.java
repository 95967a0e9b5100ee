package org.binlogrelay.protocol.event;

import java.nio.charset.StandardCharsets;
import org.binlogrelay.protocol.bytes.ByteReader;

/**
 * QUERY (2): a statement: DDL, statement-based DML, and the BEGIN / COMMIT / ROLLBACK / XA markers
 * of a transaction. Layout:
 *
 * <pre>
 *   post-header (13 bytes in binlog v4, longer in some versions: the FORMAT_DESCRIPTION length is used)
 *     u32   thread_id
 *     u32   exec_time            seconds
 *     u8    db_length
 *     u16   error_code
 *     u16   status_vars_length   absent when the post-header is only 11 bytes
 *   body
 *     n     status_vars          typed (code, value) pairs; kept raw
 *     n+1   db                   db_length bytes and a NUL
 *     rest  query                the statement text, in the session's character set
 * </pre>
 *
 * Every length is checked against the event's size before it is used. Immutable by convention: the
 * accessors return the parsed arrays themselves (not copies), so do not modify them; {@code equals}
 * compares the arrays by identity.
 *
 * @param threadId the session's thread id (u32)
 * @param executionTime seconds the statement ran (u32)
 * @param errorCode the error the statement ended with on the source (u16), normally 0
 * @param statusVariables the raw status-variables block
 * @param database the default database, "" for none
 * @param queryBytes the statement text as written
 */
public record QueryEvent(
    long threadId,
    long executionTime,
    int errorCode,
    byte[] statusVariables,
    String database,
    byte[] queryBytes) {
  /** The binlog v4 post-header length. */
  public static final int POST_HEADER_LENGTH = 13;

  /** The shortest post-header (without status_vars_length). */
  public static final int MINIMAL_POST_HEADER_LENGTH = 11;

  public static QueryEvent parse(BinlogEvent event, FormatDescriptionEvent fde) {
    ByteReader in = EventBody.open(event, fde, EventType.QUERY);
    int postHeader = fde.postHeaderLength(EventType.QUERY, POST_HEADER_LENGTH);
    if (postHeader < MINIMAL_POST_HEADER_LENGTH) {
      throw EventBody.error(
          event,
          in,
          "post-header length "
              + postHeader
              + " from FORMAT_DESCRIPTION is below "
              + MINIMAL_POST_HEADER_LENGTH);
    }
    int start = in.position();
    long threadId = in.u32("QUERY thread_id");
    long execTime = in.u32("QUERY exec_time");
    int dbLength = in.u8("QUERY db_length");
    int errorCode = in.u16("QUERY error_code");
    int statusLength = postHeader >= POST_HEADER_LENGTH ? in.u16("QUERY status_vars_length") : 0;
    EventBody.skipTo(in, start, postHeader, "QUERY post-header");
    byte[] status = in.bytes(statusLength, "QUERY status_vars");
    String db = in.string(dbLength, "QUERY db");
    if (in.u8("QUERY db terminator") != 0) {
      throw EventBody.error(event, in, "database name not followed by NUL");
    }
    return new QueryEvent(threadId, execTime, errorCode, status, db, in.rest());
  }

  /**
   * The statement decoded as UTF-8 (exact for the ASCII markers; approximate for other character
   * sets).
   */
  public String query() {
    return new String(queryBytes, StandardCharsets.UTF_8);
  }

  /** {@code BEGIN}: opens a transaction's event group. */
  public boolean isBegin() {
    return is("BEGIN");
  }

  /**
   * {@code COMMIT}: closes a group of non-transactional changes (XID closes transactional ones).
   */
  public boolean isCommit() {
    return is("COMMIT");
  }

  /** {@code ROLLBACK} of the whole transaction (not {@code ROLLBACK TO SAVEPOINT}). */
  public boolean isRollback() {
    return is("ROLLBACK");
  }

  public boolean isXaStart() {
    return startsWith("XA START") || startsWith("XA BEGIN");
  }

  public boolean isXaEnd() {
    return startsWith("XA END");
  }

  public boolean isXaPrepare() {
    return startsWith("XA PREPARE");
  }

  public boolean isXaCommit() {
    return startsWith("XA COMMIT");
  }

  public boolean isXaRollback() {
    return startsWith("XA ROLLBACK");
  }

  private boolean is(String keyword) {
    int start = skipSpaces(0);
    int end = queryBytes.length;
    while (end > start && isSpace(queryBytes[end - 1])) {
      end--;
    }
    return end - start == keyword.length() && matchesAt(start, keyword);
  }

  /**
   * Case-insensitive prefix match where each space in {@code prefix} matches one or more spaces.
   */
  private boolean startsWith(String prefix) {
    int p = skipSpaces(0);
    for (int i = 0; i < prefix.length(); i++) {
      char c = prefix.charAt(i);
      if (c == ' ') {
        if (p >= queryBytes.length || !isSpace(queryBytes[p])) {
          return false;
        }
        p = skipSpaces(p);
      } else if (p >= queryBytes.length
          || Character.toUpperCase((char) (queryBytes[p++] & 0xff)) != c) {
        return false;
      }
    }
    return p == queryBytes.length || !Character.isLetterOrDigit((char) (queryBytes[p] & 0xff));
  }

  private boolean matchesAt(int at, String keyword) {
    for (int i = 0; i < keyword.length(); i++) {
      if (Character.toUpperCase((char) (queryBytes[at + i] & 0xff)) != keyword.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  private int skipSpaces(int from) {
    int p = from;
    while (p < queryBytes.length && isSpace(queryBytes[p])) {
      p++;
    }
    return p;
  }

  private static boolean isSpace(byte b) {
    return b == ' ' || b == '\t' || b == '\n' || b == '\r';
  }

  @Override
  public String toString() {
    return "QueryEvent(thread "
        + threadId
        + ", db '"
        + database
        + "', error "
        + errorCode
        + ", "
        + query()
        + ")";
  }
}
