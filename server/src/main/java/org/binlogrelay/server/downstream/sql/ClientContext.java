package org.binlogrelay.server.downstream.sql;

import java.util.Objects;
import java.util.Set;
import org.binlogrelay.server.downstream.account.Privilege;

/**
 * Who sent a statement: the logged-in user, the host pattern of the account it matched, the address
 * it connects from, its connection id and privileges, and the TLS it connected with. Immutable.
 *
 * @param user the user name it logged in with
 * @param accountHost the account's host pattern, e.g. {@code %} ({@code CURRENT_USER()}, MySQL's
 *     access-denied errors after login)
 * @param peerAddress the client's IP address ({@code USER()})
 * @param connectionId {@code CONNECTION_ID()}
 * @param privileges the account's privileges
 * @param tlsVersion the TLS protocol of the connection ({@code TLSv1.3}), empty over plain TCP
 *     ({@code Ssl_version})
 * @param tlsCipher the TLS cipher suite in OpenSSL's naming, as MySQL reports it ({@code
 *     Ssl_cipher}), empty over plain TCP
 */
public record ClientContext(
    String user,
    String accountHost,
    String peerAddress,
    long connectionId,
    Set<Privilege> privileges,
    String tlsVersion,
    String tlsCipher) {
  public ClientContext {
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(accountHost, "accountHost");
    Objects.requireNonNull(peerAddress, "peerAddress");
    Objects.requireNonNull(tlsVersion, "tlsVersion");
    Objects.requireNonNull(tlsCipher, "tlsCipher");
    privileges = Set.copyOf(privileges);
  }

  /** A client over plain TCP. */
  public ClientContext(
      String user,
      String accountHost,
      String peerAddress,
      long connectionId,
      Set<Privilege> privileges) {
    this(user, accountHost, peerAddress, connectionId, privileges, "", "");
  }

  public boolean has(Privilege p) {
    return privileges.contains(p);
  }
}
