package org.binlogrelay.testcontainers;

import java.util.Objects;

/**
 * An account that replicas (or {@code mysqlbinlog}, or a CDC connector) log in to the relay with:
 * one line of the relay's accounts file (docs/running.md, "Accounts"), made from a plain password
 * when the container starts. The relay stores hashes only; the password given here never reaches
 * the container.
 *
 * <p>Made with {@link #of(String, String)} (any host, {@code REPLICATION_SLAVE,REPLICATION_CLIENT},
 * the plugin chosen from the primary's flavour) and refined with the {@code with...} methods.
 * Immutable and thread-safe.
 *
 * @param user the user name replicas give ({@code SOURCE_USER}, {@code MASTER_USER})
 * @param host the client host pattern ({@code %} for any; {@code %}/{@code _} patterns, never
 *     resolved)
 * @param password the password, 1..256 bytes of UTF-8
 * @param privileges comma-separated: {@code REPLICATION_SLAVE}, {@code REPLICATION_CLIENT}, {@code
 *     REPLICATION_MASTER_ADMIN}, {@code SCHEMA_READ}, or {@code -} for none
 * @param plugin how the password is hashed, or {@code null} to choose from the primary's flavour
 *     when the container starts ({@code caching_sha2_password} for MySQL, {@code
 *     mysql_native_password} for MariaDB)
 */
public record ReplicaAccount(
    String user, String host, String password, String privileges, AuthPlugin plugin) {

  /** The password hash an account is stored with; it decides the plugin the relay asks for. */
  public enum AuthPlugin {
    /** MySQL 8/9's default; MySQL 9.7 replicas need TLS (the relay offers it by default). */
    CACHING_SHA2_PASSWORD,
    /**
     * MariaDB's default; the one that lets MariaDB 11.4+ replicas trust the relay's generated
     * certificate (docs/running.md, "TLS").
     */
    MYSQL_NATIVE_PASSWORD
  }

  /** Privileges a replica needs: dump, and {@code SHOW BINARY LOGS} / status statements. */
  public static final String REPLICATION_PRIVILEGES = "REPLICATION_SLAVE,REPLICATION_CLIENT";

  public ReplicaAccount {
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(password, "password");
    Objects.requireNonNull(privileges, "privileges");
    if (user.isEmpty() || user.chars().anyMatch(Character::isWhitespace)) {
      throw new IllegalArgumentException(
          "a replica account's user name must be non-empty, without spaces: '" + user + "'");
    }
    if (host.isEmpty() || host.chars().anyMatch(Character::isWhitespace)) {
      throw new IllegalArgumentException(
          "a replica account's host must be non-empty, without spaces ('%' for any): '"
              + host
              + "'");
    }
    if (privileges.isEmpty() || privileges.chars().anyMatch(Character::isWhitespace)) {
      throw new IllegalArgumentException(
          "privileges are comma-separated without spaces, or '-': '" + privileges + "'");
    }
  }

  /**
   * An account {@code user@%} with the replication privileges, hashed for the primary's flavour.
   */
  public static ReplicaAccount of(String user, String password) {
    return new ReplicaAccount(user, "%", password, REPLICATION_PRIVILEGES, null);
  }

  /** This account for clients from {@code hostPattern} only. */
  public ReplicaAccount withHost(String hostPattern) {
    return new ReplicaAccount(user, hostPattern, password, privileges, plugin);
  }

  /** This account with other privileges (comma-separated, or {@code -}). */
  public ReplicaAccount withPrivileges(String privilegeList) {
    return new ReplicaAccount(user, host, password, privilegeList, plugin);
  }

  /** This account hashed for {@code authPlugin} whatever the primary's flavour. */
  public ReplicaAccount withPlugin(AuthPlugin authPlugin) {
    return new ReplicaAccount(user, host, password, privileges, authPlugin);
  }

  /** The accounts-file line: {@code user@host privileges hash}. */
  String accountsLine(AuthPlugin defaultPlugin) {
    AuthPlugin chosen = plugin != null ? plugin : defaultPlugin;
    String hash =
        chosen == AuthPlugin.CACHING_SHA2_PASSWORD
            ? PasswordHash.cachingSha2(password)
            : PasswordHash.nativePassword(password);
    return user + "@" + host + " " + privileges + " " + hash;
  }

  /** Does not print the password. */
  @Override
  public String toString() {
    return "ReplicaAccount[" + user + "@" + host + " " + privileges + ", plugin " + plugin + "]";
  }
}
