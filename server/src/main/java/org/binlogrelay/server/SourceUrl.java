package org.binlogrelay.server;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.binlogrelay.server.OptionSources.Layer;

/**
 * The primary as one URL, {@code --source
 * mysql://USER[:PASSWORD]@HOST[:PORT][?ssl-mode=MODE&ssl-ca=FILE&...]}, in the form of MySQL
 * Shell's connection URIs; {@code mariadb://} is the same (the flavour is still learnt from the
 * primary, or given with {@code --flavor}). User and password are percent-encoded where they hold
 * {@code @}, {@code :}, {@code /}, {@code ?} or {@code %}. The parameters are {@code ssl-mode},
 * {@code ssl-ca}, {@code ssl-cert} and {@code ssl-key}, as the {@code --primary-ssl-*} options.
 *
 * <p>It stands for {@code --primary}, {@code --primary-user}, the password and the {@code
 * --primary-ssl-*} options ({@link #applyTo}): each part it gives replaces the option's value when
 * the option was given at a lower precedence (see {@link OptionSources}), yields when at a higher
 * one, and both at the same precedence is an error. {@link #toString()} hides the password, as
 * every message does. Immutable.
 *
 * @param host the primary's host and port (3306 if not written)
 * @param user the user, or null
 * @param password the password, or null
 * @param parameters option key ({@code primary-ssl-mode}, ...) to value
 */
record SourceUrl(
    String scheme, HostPort host, String user, String password, Map<String, String> parameters) {
  private static final List<String> SCHEMES = List.of("mysql", "mariadb");
  private static final List<String> PARAMETERS =
      List.of("ssl-mode", "ssl-ca", "ssl-cert", "ssl-key");

  SourceUrl {
    parameters = Map.copyOf(parameters);
  }

  /**
   * Parses {@code text}.
   *
   * @throws IllegalArgumentException saying what is wrong, without the password
   */
  static SourceUrl parse(String text) {
    String t = text.strip();
    int schemeEnd = t.indexOf("://");
    String scheme = schemeEnd < 0 ? "" : t.substring(0, schemeEnd).toLowerCase(Locale.ROOT);
    if (!SCHEMES.contains(scheme)) {
      throw new IllegalArgumentException(
          "source '"
              + redact(t)
              + "' does not start with mysql:// or mariadb://;"
              + " expected mysql://USER[:PASSWORD]@HOST[:PORT]");
    }
    String rest = t.substring(schemeEnd + 3);
    String query = "";
    int question = rest.indexOf('?');
    if (question >= 0) {
      query = rest.substring(question + 1);
      rest = rest.substring(0, question);
    }
    int at = rest.lastIndexOf('@');
    String userInfo = at < 0 ? null : rest.substring(0, at);
    String hostPart = at < 0 ? rest : rest.substring(at + 1);
    int slash = hostPart.indexOf('/');
    if (slash >= 0) {
      if (!hostPart.substring(slash + 1).isEmpty()) {
        throw new IllegalArgumentException(
            "source '"
                + redact(t)
                + "' names a schema ('/"
                + hostPart.substring(slash + 1)
                + "'); the relay copies the whole binlog, leave it out");
      }
      hostPart = hostPart.substring(0, slash);
    }
    HostPort host;
    try {
      host = HostPort.parse(hostPart, RelayOptions.DEFAULT_PRIMARY_PORT);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("source '" + redact(t) + "': " + e.getMessage());
    }
    String user = null;
    String password = null;
    if (userInfo != null) {
      int colon = userInfo.indexOf(':');
      user = decode(colon < 0 ? userInfo : userInfo.substring(0, colon), t);
      password = colon < 0 ? null : decode(userInfo.substring(colon + 1), t);
      if (user.isEmpty()) {
        throw new IllegalArgumentException("source '" + redact(t) + "' has an empty user");
      }
    }
    return new SourceUrl(scheme, host, user, password, parameters(query, t));
  }

  private static Map<String, String> parameters(String query, String text) {
    Map<String, String> parameters = new LinkedHashMap<>();
    if (query.isEmpty()) {
      return parameters;
    }
    for (String pair : query.split("&")) {
      int equals = pair.indexOf('=');
      String name = ConfigFile.key(decode(equals < 0 ? pair : pair.substring(0, equals), text));
      String value = equals < 0 ? "" : decode(pair.substring(equals + 1), text);
      if (!PARAMETERS.contains(name)) {
        throw new IllegalArgumentException(
            "source '"
                + redact(text)
                + "': unknown parameter '"
                + name
                + "'; known: "
                + String.join(", ", PARAMETERS));
      }
      if (value.isBlank()) {
        throw new IllegalArgumentException(
            "source '" + redact(text) + "': parameter '" + name + "' has no value");
      }
      if (parameters.put("primary-" + name, value) != null) {
        throw new IllegalArgumentException(
            "source '" + redact(text) + "': parameter '" + name + "' is given twice");
      }
    }
    return parameters;
  }

  /** Percent-decoding (RFC 3986; {@code +} stays {@code +}). */
  private static String decode(String s, String text) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '%') {
        if (i + 2 >= s.length()
            || Character.digit(s.charAt(i + 1), 16) < 0
            || Character.digit(s.charAt(i + 2), 16) < 0) {
          throw new IllegalArgumentException(
              "source '"
                  + redact(text)
                  + "': '%' must be followed by two hex"
                  + " digits (write %25 for '%')");
        }
        bytes.write(
            Character.digit(s.charAt(i + 1), 16) * 16 + Character.digit(s.charAt(i + 2), 16));
        i += 2;
      } else {
        byte[] b = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
        bytes.write(b, 0, b.length);
      }
    }
    return bytes.toString(StandardCharsets.UTF_8);
  }

  /**
   * {@code text} with the password of any {@code scheme://user:password@host} in it replaced by
   * {@code ***}. The password ends where {@link #parse} ends it: at the last {@code @} of the URL.
   * A URL in quotes (as messages quote it) runs to the closing quote, so a raw {@code @} or space
   * in its password is hidden too; an unquoted one runs to the next whitespace.
   */
  static String redact(String text) {
    StringBuilder out = new StringBuilder(text.length());
    int from = 0;
    while (true) {
      int scheme = text.indexOf("://", from);
      if (scheme < 0) {
        return out.append(text, from, text.length()).toString();
      }
      int userStart = scheme + 3;
      int colon = userStart;
      while (colon < text.length() && ":/@?'\" \t\n".indexOf(text.charAt(colon)) < 0) {
        colon++;
      }
      int schemeStart = scheme;
      while (schemeStart > from && Character.isLetter(text.charAt(schemeStart - 1))) {
        schemeStart--;
      }
      char quote = schemeStart > 0 ? text.charAt(schemeStart - 1) : ' ';
      String ends = quote == '\'' || quote == '"' ? String.valueOf(quote) : " \t\n";
      int urlEnd = colon;
      while (urlEnd < text.length() && ends.indexOf(text.charAt(urlEnd)) < 0) {
        urlEnd++;
      }
      int at =
          colon < text.length() && text.charAt(colon) == ':'
              ? text.lastIndexOf('@', urlEnd - 1)
              : -1;
      if (at > colon) {
        out.append(text, from, colon + 1).append("***");
        from = at;
      } else {
        out.append(text, from, userStart);
        from = userStart;
      }
    }
  }

  /**
   * Sets the options this URL gives on {@code options}, unless they were given at a higher
   * precedence.
   *
   * @param layerOf where an option's value came from, by key
   * @param whereOf how a message names an option's origin, by key
   * @param layer where this URL came from
   * @return the keys of the options it set
   * @throws IllegalArgumentException if an option and this URL set the same thing at the same
   *     precedence
   */
  Set<String> applyTo(
      RelayOptions options,
      Function<String, Layer> layerOf,
      Function<String, String> whereOf,
      Layer layer) {
    Set<String> set = new HashSet<>();
    if (replaces("primary", layerOf, whereOf, layer)) {
      options.primary = host;
      set.add("primary");
    }
    if (user != null && replaces("primary-user", layerOf, whereOf, layer)) {
      options.primaryUser = user;
      set.add("primary-user");
    }
    if (password != null) {
      Layer passwordLayer =
          layerOf.apply("primary-password").compareTo(layerOf.apply("primary-password-file")) > 0
              ? layerOf.apply("primary-password")
              : layerOf.apply("primary-password-file");
      String key = options.primaryPassword != null ? "primary-password" : "primary-password-file";
      if (passwordLayer == layer) {
        throw new IllegalArgumentException(
            whereOf.apply("source")
                + " and "
                + whereOf.apply(key)
                + " both give the"
                + " primary's password; keep one");
      }
      if (passwordLayer.compareTo(layer) < 0) {
        options.primaryPassword = password;
        options.primaryPasswordFile = null;
        set.add("primary-password");
      }
    }
    for (Map.Entry<String, String> p : parameters.entrySet()) {
      if (!replaces(p.getKey(), layerOf, whereOf, layer)) {
        continue;
      }
      set.add(p.getKey());
      switch (p.getKey()) {
        case "primary-ssl-mode" -> options.primarySslMode = parameter(p, OptionValues::tlsMode);
        case "primary-ssl-ca" -> options.primarySslCa = Path.of(p.getValue());
        case "primary-ssl-cert" -> options.primarySslCert = Path.of(p.getValue());
        case "primary-ssl-key" -> options.primarySslKey = Path.of(p.getValue());
        default -> throw new IllegalStateException(p.getKey());
      }
    }
    return set;
  }

  private <T> T parameter(Map.Entry<String, String> p, Function<String, T> parser) {
    try {
      return parser.apply(p.getValue());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--source " + this + ": " + e.getMessage());
    }
  }

  private static boolean replaces(
      String key, Function<String, Layer> layerOf, Function<String, String> whereOf, Layer layer) {
    Layer existing = layerOf.apply(key);
    if (existing == layer) {
      throw new IllegalArgumentException(
          whereOf.apply("source")
              + " and "
              + whereOf.apply(key)
              + " both set the"
              + " primary's "
              + (key.equals("primary") ? "address" : key.substring("primary-".length()))
              + "; keep one");
    }
    return existing.compareTo(layer) < 0;
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder(scheme).append("://");
    if (user != null) {
      s.append(user).append(password != null ? ":***" : "").append('@');
    }
    s.append(host);
    String separator = "?";
    for (Map.Entry<String, String> p : parameters.entrySet()) {
      s.append(separator)
          .append(p.getKey().substring("primary-".length()))
          .append('=')
          .append(p.getValue());
      separator = "&";
    }
    return s.toString();
  }
}
