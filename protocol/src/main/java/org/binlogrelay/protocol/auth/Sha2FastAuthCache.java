package org.binlogrelay.protocol.auth;

import java.security.MessageDigest;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * caching_sha2_password's in-memory cache: account to SHA256(SHA256(password)), filled after a
 * successful full authentication (as MySQL's {@code SHA2_password_cache} is) and used by the fast
 * path.
 *
 * <p>Each entry remembers the credential it was verified against, so a changed password in the
 * configuration can never be fast-authenticated with the old one: a lookup with a different
 * credential misses. At most {@code maxEntries} accounts are cached; past that, new accounts simply
 * take the full path.
 *
 * <p>Thread-safe (a concurrent map); entries are immutable.
 */
public final class Sha2FastAuthCache {
  private record Entry(Credential credential, byte[] fastDigest) {}

  private final Map<String, Entry> entries = new ConcurrentHashMap<>();
  private final int maxEntries;

  public Sha2FastAuthCache(int maxEntries) {
    if (maxEntries < 0) {
      throw new IllegalArgumentException("maxEntries " + maxEntries + " is negative");
    }
    this.maxEntries = maxEntries;
  }

  /**
   * The cached SHA256(SHA256(password)) for {@code account}, or null if none for this credential.
   */
  byte[] get(String account, Credential credential) {
    Entry e = entries.get(account);
    return e != null && e.credential.equals(credential) ? e.fastDigest.clone() : null;
  }

  void put(String account, Credential credential, byte[] fastDigest) {
    if (entries.size() >= maxEntries && !entries.containsKey(account)) {
      return;
    }
    Entry old = entries.get(account);
    if (old == null
        || !old.credential.equals(credential)
        || !MessageDigest.isEqual(old.fastDigest, fastDigest)) {
      entries.put(account, new Entry(credential, fastDigest.clone()));
    }
  }

  /** Forgets one account (e.g. when it is removed from the configuration). */
  public void remove(String account) {
    entries.remove(account);
  }

  public void clear() {
    entries.clear();
  }

  public int size() {
    return entries.size();
  }
}
