package org.binlogrelay.server.downstream.sql;

import java.util.Objects;
import java.util.Set;
import org.binlogrelay.server.downstream.account.Privilege;

/**
 * Who sent a statement: the logged-in user, the host pattern of the account it matched, the address it
 * connects from, its connection id and privileges. Immutable.
 *
 * @param user the user name it logged in with
 * @param accountHost the account's host pattern, e.g. {@code %} ({@code CURRENT_USER()}, MySQL's access-denied
 *     errors after login)
 * @param peerAddress the client's IP address ({@code USER()})
 * @param connectionId {@code CONNECTION_ID()}
 * @param privileges the account's privileges
 */
public record ClientContext(String user, String accountHost, String peerAddress, long connectionId,
    Set<Privilege> privileges) {
  public ClientContext {
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(accountHost, "accountHost");
    Objects.requireNonNull(peerAddress, "peerAddress");
    privileges = Set.copyOf(privileges);
  }

  public boolean has(Privilege p) {
    return privileges.contains(p);
  }
}
