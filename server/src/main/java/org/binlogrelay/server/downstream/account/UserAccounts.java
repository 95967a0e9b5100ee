package org.binlogrelay.server.downstream.account;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.binlogrelay.protocol.auth.Credential;

/**
 * The accounts of the relay, and their text format (one account per line, no plain-text password
 * anywhere):
 *
 * <pre>
 *   # user@host   privileges                               password hash
 *   repl@%        REPLICATION_SLAVE,REPLICATION_CLIENT      $A$00A$Ab3dE.../salt+digest (70 characters)
 *   monitor@10.%  REPLICATION_CLIENT                        *2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19
 *   old@%         REPLICATION_SLAVE                         0x2441243030412...   (SHOW CREATE USER's hex form)
 * </pre>
 *
 * Fields are separated by spaces or tabs; the hash is the rest of the line after the second field
 * (a {@code $A$} hash is exactly 70 characters and may itself contain spaces). {@code -} means no
 * privileges. The user name is everything before the last {@code @}. Hashes come from {@link
 * org.binlogrelay.protocol.auth.PasswordHashes} or from MySQL's {@code mysql.user}.
 *
 * <p>Immutable and thread-safe.
 */
public final class UserAccounts {
  private final List<UserAccount> accounts;

  public UserAccounts(List<UserAccount> accounts) {
    List<UserAccount> sorted = new ArrayList<>(accounts);
    sorted.sort(Comparator.comparing(UserAccount::host));
    for (int i = 0; i < sorted.size(); i++) {
      for (int j = i + 1; j < sorted.size(); j++) {
        if (sorted.get(i).key().equals(sorted.get(j).key())) {
          throw new IllegalArgumentException(
              "account '"
                  + sorted.get(i).user()
                  + "'@'"
                  + sorted.get(i).host()
                  + "' is defined twice");
        }
      }
    }
    this.accounts = List.copyOf(sorted);
  }

  /** Parses the text format; {@link IllegalArgumentException} naming the line on any error. */
  public static UserAccounts parse(String text) {
    List<UserAccount> accounts = new ArrayList<>();
    String[] lines = text.split("\r?\n", -1);
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i].strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      try {
        accounts.add(parseLine(lines[i].stripLeading()));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("accounts line " + (i + 1) + ": " + e.getMessage(), e);
      }
    }
    return new UserAccounts(accounts);
  }

  private static UserAccount parseLine(String line) {
    int first = indexOfSpace(line, 0);
    if (first < 0) {
      throw new IllegalArgumentException("expected 'user@host privileges hash'");
    }
    String userHost = line.substring(0, first);
    int second = indexOfSpace(line, skipSpaces(line, first));
    if (second < 0) {
      throw new IllegalArgumentException(
          "expected 'user@host privileges hash', the hash is missing");
    }
    String privileges = line.substring(skipSpaces(line, first), second);
    String hash = line.substring(skipSpaces(line, second));
    if (!hash.startsWith("$A$")) {
      hash = hash.strip();
    } else if (hash.length() > 70 && hash.substring(70).isBlank()) {
      hash = hash.substring(0, 70);
    }
    int at = userHost.lastIndexOf('@');
    if (at <= 0 || at == userHost.length() - 1) {
      throw new IllegalArgumentException("'" + userHost + "' is not user@host");
    }
    Set<Privilege> set = EnumSet.noneOf(Privilege.class);
    if (!privileges.equals("-")) {
      for (String p : privileges.split(",")) {
        set.add(Privilege.parse(p));
      }
    }
    return new UserAccount(
        userHost.substring(0, at),
        HostPattern.of(userHost.substring(at + 1)),
        Credential.parse(hash),
        set);
  }

  private static int indexOfSpace(String s, int from) {
    for (int i = from; i < s.length(); i++) {
      if (s.charAt(i) == ' ' || s.charAt(i) == '\t') {
        return i;
      }
    }
    return -1;
  }

  private static int skipSpaces(String s, int from) {
    int i = from;
    while (i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == '\t')) {
      i++;
    }
    return i;
  }

  /** The account {@code user} logs in to from {@code address}: the most specific matching host. */
  public Optional<UserAccount> find(String user, String address) {
    for (UserAccount a : accounts) {
      if (a.user().equals(user) && a.host().matches(address)) {
        return Optional.of(a);
      }
    }
    return Optional.empty();
  }

  public List<UserAccount> all() {
    return accounts;
  }
}
