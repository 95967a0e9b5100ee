package org.binlogrelay.bench.report;

import java.util.Locale;

/**
 * A minimal streaming JSON writer for {@link Report}: objects, arrays, strings, numbers, booleans,
 * null. Commas are placed automatically. Not thread-safe.
 */
final class Json {
  private final StringBuilder out = new StringBuilder();
  private boolean needComma;

  Json open(char bracket) {
    comma();
    out.append(bracket);
    needComma = false;
    return this;
  }

  Json close(char bracket) {
    out.append(bracket);
    needComma = true;
    return this;
  }

  Json key(String key) {
    comma();
    string(key);
    out.append(':');
    needComma = false;
    return this;
  }

  Json value(Object value) {
    comma();
    if (value == null) {
      out.append("null");
    } else if (value instanceof Double d) {
      out.append(d.isNaN() || d.isInfinite() ? "null" : Double.toString(d));
    } else if (value instanceof Number || value instanceof Boolean) {
      out.append(value);
    } else {
      string(value.toString());
    }
    needComma = true;
    return this;
  }

  private void comma() {
    if (needComma) {
      out.append(',');
    }
  }

  private void string(String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }

  @Override
  public String toString() {
    return out.toString();
  }
}
