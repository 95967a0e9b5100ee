package org.binlogrelay.protocol.query;

/**
 * One lexical token of a statement: its kind, its value (unquoted and unescaped for strings and
 * quoted identifiers) and where it lies in the statement text, so that column names and error
 * messages can quote the source as MySQL does. Immutable.
 *
 * @param type the kind
 * @param value the value
 * @param start offset of the first character in the statement
 * @param end offset just past the last character
 * @param line 1-based line of the first character
 */
public record Token(TokenType type, String value, int start, int end, int line) {

  /** True for a bare word equal to {@code keyword}, ignoring case. */
  public boolean isWord(String keyword) {
    return type == TokenType.WORD && value.equalsIgnoreCase(keyword);
  }

  @Override
  public String toString() {
    return type + "(" + value + ")@" + start;
  }
}
