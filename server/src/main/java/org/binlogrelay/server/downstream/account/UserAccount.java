package org.binlogrelay.server.downstream.account;

import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import org.binlogrelay.protocol.auth.Credential;

/**
 * One account that may log in to the relay: {@code 'user'@'host'}, its password hash and its
 * privileges. Immutable.
 *
 * @param user the user name (case-sensitive, as in MySQL)
 * @param host where it may connect from
 * @param credential the stored hash; its kind decides the auth plugin
 * @param privileges the global privileges
 */
public record UserAccount(
    String user, HostPattern host, Credential credential, Set<Privilege> privileges) {
  /** MySQL's limit on user names (32 characters). */
  public static final int MAX_USER_CHARS = 32;

  public UserAccount {
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(credential, "credential");
    if (user.isEmpty() || user.length() > MAX_USER_CHARS) {
      throw new IllegalArgumentException(
          "user name must be 1.." + MAX_USER_CHARS + " characters, got '" + user + "'");
    }
    privileges = privileges.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(privileges));
  }

  public boolean has(Privilege privilege) {
    return privileges.contains(privilege);
  }

  /** {@code user@host}, the key of caches such as caching_sha2_password's. */
  public String key() {
    return user + "@" + host.text();
  }

  @Override
  public String toString() {
    return "'" + user + "'@'" + host.text() + "' " + privileges + " " + credential.pluginName();
  }
}
