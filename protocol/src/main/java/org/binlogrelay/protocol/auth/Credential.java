package org.binlogrelay.protocol.auth;

/**
 * What the server stores to check one account's password: never the password, only a hash that the
 * account's plugin can verify. One implementation per plugin: {@link NativePasswordHash} for {@code
 * mysql_native_password}, {@link CachingSha2Hash} for {@code caching_sha2_password}.
 *
 * <p>Implementations are immutable and thread-safe.
 */
public sealed interface Credential permits NativePasswordHash, CachingSha2Hash {

  /** The server-side plugin that verifies this credential. */
  String pluginName();

  /**
   * The stored form, as it appears in configuration: {@code *HEX} or {@code $A$...} / {@code
   * 0x...}.
   */
  String storedForm();

  /**
   * Parses a stored form: {@code *} followed by 40 hex digits is a native hash; {@code $A$} or
   * {@code 0x} a caching_sha2 one. Throws {@link IllegalArgumentException} saying which form was
   * expected.
   */
  static Credential parse(String stored) {
    if (stored.startsWith("*")) {
      return NativePasswordHash.parse(stored);
    }
    if (stored.startsWith("$A$") || stored.startsWith("0x") || stored.startsWith("0X")) {
      return CachingSha2Hash.parse(stored);
    }
    throw new IllegalArgumentException(
        "password hash '"
            + abbreviate(stored)
            + "' is neither a mysql_native_password"
            + " hash (*, 40 hex digits) nor a caching_sha2_password one ($A$..., or 0x + hex as SHOW CREATE USER prints it);"
            + " make one with PasswordHashes");
  }

  private static String abbreviate(String s) {
    return s.length() <= 12 ? s : s.substring(0, 12) + "...";
  }
}
