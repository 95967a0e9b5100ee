package org.binlogrelay.protocol.query;

/**
 * A statement the parser does not understand. Carries what MySQL's ER_PARSE_ERROR (1064) quotes:
 * the text from the offending token on (at most 80 characters) and its line. The server turns it
 * into "You have an error in your SQL syntax; check the manual that corresponds to your MySQL
 * server version for the right syntax to use near '...' at line N".
 */
public final class SqlSyntaxError extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** MySQL quotes at most this many characters ({@code %-.80s}). */
  public static final int NEAR_LIMIT = 80;

  private final String near;
  private final int line;

  public SqlSyntaxError(String reason, String near, int line) {
    super(reason + " near '" + near + "' at line " + line);
    this.near = near.length() > NEAR_LIMIT ? near.substring(0, NEAR_LIMIT) : near;
    this.line = line;
  }

  /** The statement text from the offending token on, cut to 80 characters; empty at the end. */
  public String near() {
    return near;
  }

  public int line() {
    return line;
  }
}
