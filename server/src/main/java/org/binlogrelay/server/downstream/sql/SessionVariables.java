package org.binlogrelay.server.downstream.sql;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * One connection's state that statements change: user variables ({@code SET @master_binlog_checksum = ...},
 * {@code @slave_connect_state}, {@code @master_heartbeat_period} ...), session values of system variables,
 * and the current database. A replica's dump reads several of these.
 *
 * <p>Hard limits: at most {@link #MAX_USER_VARIABLES} user variables and {@link #MAX_VALUE_CHARS} characters per
 * value, so a client cannot grow a connection's memory without bound; past them {@link #setUser} refuses.
 *
 * <p>Not thread-safe: owned by the connection's event loop.
 */
public final class SessionVariables {
  public static final int MAX_USER_VARIABLES = 1024;
  public static final int MAX_VALUE_CHARS = 65_536;

  private final Map<String, UserValue> user = new HashMap<>();
  private final Map<String, String> system = new HashMap<>();
  private String database;

  /** The user variable, NULL if never set (names are case-insensitive). */
  public UserValue user(String name) {
    return user.getOrDefault(name.toLowerCase(Locale.ROOT), UserValue.NULL);
  }

  /** The text of a user variable, or empty if unset or NULL. */
  public Optional<String> userText(String name) {
    return Optional.ofNullable(user(name).text());
  }

  /** Sets a user variable; false (and nothing changes) past the limits. */
  public boolean setUser(String name, UserValue value) {
    String key = name.toLowerCase(Locale.ROOT);
    if (value.text() != null && value.text().length() > MAX_VALUE_CHARS) {
      return false;
    }
    if (!user.containsKey(key) && user.size() >= MAX_USER_VARIABLES) {
      return false;
    }
    user.put(key, value);
    return true;
  }

  /** A session's own value of a system variable; {@code value} is null for SQL NULL. */
  public record Setting(String value) {}

  /** The session's own value of a system variable, if it set one. */
  public Optional<Setting> system(String name) {
    String key = name.toLowerCase(Locale.ROOT);
    return system.containsKey(key) ? Optional.of(new Setting(system.get(key))) : Optional.empty();
  }

  /** Sets the session's own value; null for SQL NULL. */
  public void setSystem(String name, String value) {
    system.put(name.toLowerCase(Locale.ROOT), value);
  }

  /** Back to the global value ({@code SET x = DEFAULT}). */
  public void resetSystem(String name) {
    system.remove(name.toLowerCase(Locale.ROOT));
  }

  public String database() {
    return database;
  }

  public void database(String name) {
    this.database = name;
  }

  /** COM_RESET_CONNECTION: forget everything. */
  public void reset() {
    user.clear();
    system.clear();
    database = null;
  }
}
