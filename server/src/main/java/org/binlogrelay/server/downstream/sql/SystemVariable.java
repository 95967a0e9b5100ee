package org.binlogrelay.server.downstream.sql;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * One system variable the relay knows: its name (lower case), type, whether sessions may have their
 * own value ({@code SET SESSION}), whether its value may be NULL (such as {@code
 * character_set_results}), where its global value comes from (a constant or a live supplier, e.g.
 * {@code gtid_executed} from storage), and, where a server asks for a special privilege to change
 * it, the privileges its refusal names (null: sessions may set it freely / the dialect's generic
 * SET GLOBAL privileges), and, for an enumeration such as {@code transaction_isolation}, the values
 * {@code SET} accepts (empty: any). Immutable; the supplier must be thread-safe.
 */
public record SystemVariable(
    String name,
    VariableType type,
    boolean hasSessionValue,
    boolean nullable,
    Supplier<String> globalValue,
    String sessionSetPrivileges,
    String globalSetPrivileges,
    List<String> allowedValues) {

  public SystemVariable {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(globalValue, "globalValue");
    name = name.toLowerCase(Locale.ROOT);
    allowedValues = List.copyOf(allowedValues);
  }

  public SystemVariable(
      String name,
      VariableType type,
      boolean hasSessionValue,
      boolean nullable,
      Supplier<String> globalValue,
      String sessionSetPrivileges,
      String globalSetPrivileges) {
    this(
        name,
        type,
        hasSessionValue,
        nullable,
        globalValue,
        sessionSetPrivileges,
        globalSetPrivileges,
        List.of());
  }

  public static SystemVariable global(String name, VariableType type, String value) {
    return new SystemVariable(name, type, false, false, () -> value, null, null);
  }

  public static SystemVariable session(String name, VariableType type, String value) {
    return new SystemVariable(name, type, true, false, () -> value, null, null);
  }

  public static SystemVariable live(String name, VariableType type, Supplier<String> value) {
    return new SystemVariable(name, type, false, false, value, null, null);
  }

  /**
   * A variable sessions may set, whose global value comes from {@code value} (e.g. the primary's).
   */
  public static SystemVariable liveSession(String name, VariableType type, Supplier<String> value) {
    return new SystemVariable(name, type, true, false, value, null, null);
  }

  public SystemVariable withValue(String value) {
    return new SystemVariable(
        name,
        type,
        hasSessionValue,
        nullable,
        () -> value,
        sessionSetPrivileges,
        globalSetPrivileges,
        allowedValues);
  }

  public SystemVariable withNullable() {
    return new SystemVariable(
        name,
        type,
        hasSessionValue,
        true,
        globalValue,
        sessionSetPrivileges,
        globalSetPrivileges,
        allowedValues);
  }

  /**
   * A copy that accepts only {@code values} (ignoring case; or their 0-based index), stored as
   * spelled here.
   */
  public SystemVariable withAllowed(String... values) {
    return new SystemVariable(
        name,
        type,
        hasSessionValue,
        nullable,
        globalValue,
        sessionSetPrivileges,
        globalSetPrivileges,
        List.of(values));
  }

  /**
   * A copy that has a session value which needs {@code sessionPrivileges} to set (MariaDB's {@code
   * server_id}: readable per session, settable with BINLOG REPLAY), and names {@code
   * globalPrivileges} when SET GLOBAL is refused.
   */
  public SystemVariable withPrivileges(String sessionPrivileges, String globalPrivileges) {
    return new SystemVariable(
        name,
        type,
        sessionPrivileges != null || hasSessionValue,
        nullable,
        globalValue,
        sessionPrivileges,
        globalPrivileges,
        allowedValues);
  }

  /** The value as {@code SHOW VARIABLES} prints it: booleans as ON / OFF. */
  public String shown(String value) {
    if (type == VariableType.BOOLEAN && value != null) {
      return "1".equals(value) ? "ON" : "OFF";
    }
    return value;
  }

  /**
   * Normalises a value for {@code SET}, or returns null when the type refuses it: booleans accept
   * ON/OFF/TRUE/FALSE/1/0 and are stored as 1/0; integers accept decimal integers.
   */
  public String normalise(String value) {
    if (!allowedValues.isEmpty()) {
      for (int i = 0; i < allowedValues.size(); i++) {
        if (allowedValues.get(i).equalsIgnoreCase(value) || value.equals(Integer.toString(i))) {
          return allowedValues.get(i);
        }
      }
      return null;
    }
    switch (type) {
      case BOOLEAN:
        switch (value.toUpperCase(Locale.ROOT)) {
          case "1":
          case "ON":
          case "TRUE":
            return "1";
          case "0":
          case "OFF":
          case "FALSE":
            return "0";
          default:
            return null;
        }
      case UNSIGNED:
        return value.matches("[0-9]{1,20}") ? value : null;
      case SIGNED:
        return value.matches("-?[0-9]{1,19}") ? value : null;
      default:
        return value;
    }
  }
}
