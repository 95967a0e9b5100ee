package org.binlogrelay.server.downstream.sql;

import java.util.Collection;
import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The system variables the relay answers for, by lower-case name, in name order (as {@code SHOW
 * VARIABLES} lists them). Built once from the dialect's defaults and the configuration; a name that
 * is not here is "Unknown system variable" (1193), as on a real server.
 *
 * <p>Immutable and thread-safe (live values come from thread-safe suppliers).
 */
public final class ServerVariables {
  private final Map<String, SystemVariable> byName;

  public ServerVariables(Collection<SystemVariable> variables) {
    TreeMap<String, SystemVariable> map = new TreeMap<>();
    for (SystemVariable v : variables) {
      map.put(v.name(), v);
    }
    this.byName = Collections.unmodifiableMap(map);
  }

  public Optional<SystemVariable> find(String name) {
    return Optional.ofNullable(byName.get(name.toLowerCase(Locale.ROOT)));
  }

  public Collection<SystemVariable> all() {
    return byName.values();
  }

  /** A copy with {@code variables} added or replacing those of the same name. */
  public ServerVariables with(Collection<SystemVariable> variables) {
    TreeMap<String, SystemVariable> map = new TreeMap<>(byName);
    for (SystemVariable v : variables) {
      map.put(v.name(), v);
    }
    return new ServerVariables(map.values());
  }
}
