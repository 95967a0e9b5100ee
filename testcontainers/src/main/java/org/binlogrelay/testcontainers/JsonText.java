package org.binlogrelay.testcontainers;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small JSON reader for the relay's admin API answers (docs/admin-api.md): objects become {@code
 * Map<String, Object>}, arrays {@code List<Object>}, numbers {@code Double}, and {@code
 * true}/{@code false}/{@code null} themselves. Enough for the few fields the container reads,
 * without putting a JSON library on its users' class path. Malformed input throws {@link
 * IllegalArgumentException} with the offset.
 *
 * <p>Stateless entry point ({@link #parse}); each parse uses its own instance. Thread-safe.
 */
final class JsonText {
  private final String text;
  private int at;

  private JsonText(String text) {
    this.text = text;
  }

  /** The value {@code text} holds. */
  static Object parse(String text) {
    JsonText reader = new JsonText(text);
    Object value = reader.value();
    reader.skipSpaces();
    if (reader.at != text.length()) {
      throw reader.error("text after the JSON value");
    }
    return value;
  }

  /** The member {@code name} of {@code object}, which must be a JSON object. */
  static Object member(Object object, String name) {
    if (!(object instanceof Map<?, ?> map)) {
      throw new IllegalArgumentException("expected a JSON object with '" + name + "'");
    }
    return map.get(name);
  }

  private Object value() {
    skipSpaces();
    if (at >= text.length()) {
      throw error("unexpected end");
    }
    char c = text.charAt(at);
    switch (c) {
      case '{':
        return object();
      case '[':
        return array();
      case '"':
        return string();
      case 't':
        return literal("true", true);
      case 'f':
        return literal("false", false);
      case 'n':
        return literal("null", null);
      default:
        return number();
    }
  }

  private Map<String, Object> object() {
    Map<String, Object> map = new LinkedHashMap<>();
    at++;
    skipSpaces();
    if (peek() == '}') {
      at++;
      return map;
    }
    while (true) {
      skipSpaces();
      if (peek() != '"') {
        throw error("expected a member name");
      }
      String name = string();
      skipSpaces();
      expect(':');
      map.put(name, value());
      skipSpaces();
      char c = next();
      if (c == '}') {
        return map;
      }
      if (c != ',') {
        throw error("expected ',' or '}'");
      }
    }
  }

  private List<Object> array() {
    List<Object> list = new ArrayList<>();
    at++;
    skipSpaces();
    if (peek() == ']') {
      at++;
      return list;
    }
    while (true) {
      list.add(value());
      skipSpaces();
      char c = next();
      if (c == ']') {
        return list;
      }
      if (c != ',') {
        throw error("expected ',' or ']'");
      }
    }
  }

  private String string() {
    at++;
    StringBuilder out = new StringBuilder();
    while (true) {
      char c = next();
      if (c == '"') {
        return out.toString();
      }
      if (c != '\\') {
        out.append(c);
        continue;
      }
      char e = next();
      switch (e) {
        case 'b':
          out.append('\b');
          break;
        case 'f':
          out.append('\f');
          break;
        case 'n':
          out.append('\n');
          break;
        case 'r':
          out.append('\r');
          break;
        case 't':
          out.append('\t');
          break;
        case 'u':
          if (at + 4 > text.length()) {
            throw error("short \\u escape");
          }
          out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
          at += 4;
          break;
        default:
          out.append(e);
      }
    }
  }

  private Object literal(String word, Object value) {
    if (!text.startsWith(word, at)) {
      throw error("expected " + word);
    }
    at += word.length();
    return value;
  }

  private Double number() {
    int start = at;
    while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) {
      at++;
    }
    try {
      return Double.valueOf(text.substring(start, at));
    } catch (NumberFormatException e) {
      at = start;
      throw error("expected a value");
    }
  }

  private void skipSpaces() {
    while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
      at++;
    }
  }

  private char peek() {
    return at < text.length() ? text.charAt(at) : '\0';
  }

  private char next() {
    if (at >= text.length()) {
      throw error("unexpected end");
    }
    return text.charAt(at++);
  }

  private void expect(char c) {
    if (next() != c) {
      at--;
      throw error("expected '" + c + "'");
    }
  }

  private IllegalArgumentException error(String what) {
    return new IllegalArgumentException("admin API answer is not JSON: " + what + " at " + at);
  }
}
