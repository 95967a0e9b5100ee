package org.binlogrelay.testcontainers;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Whether one GTID set, in its server's text form, holds another: what "the relay has everything
 * the primary executed" means.
 *
 * <ul>
 *   <li>MySQL ({@code @@gtid_executed}): {@code uuid:1-5:7,uuid2:1-3}, with tags ({@code
 *       uuid:1-5:tag:1-3}, MySQL 8.3+); every interval of the subset must lie in an interval of the
 *       superset for the same uuid and tag (both sets normalized, as servers print them).
 *   <li>MariaDB ({@code @@gtid_binlog_pos}, {@code @@gtid_binlog_state}): {@code
 *       domain-server-seq,...}; per replication domain, the superset's highest sequence number must
 *       be at least the subset's.
 * </ul>
 *
 * Stateless and thread-safe.
 */
final class GtidSetText {
  private GtidSetText() {}

  /** True if {@code superset} holds every transaction of {@code subset}. */
  static boolean contains(String superset, String subset) {
    String sup = superset.strip();
    String sub = subset.strip();
    if (sub.isEmpty()) {
      return true;
    }
    return isMariaDb(sub) || isMariaDb(sup)
        ? mariaDbContains(sup, sub)
        : mySqlContains(mySql(sup), mySql(sub));
  }

  private static boolean isMariaDb(String set) {
    // MariaDB GTIDs are three numbers; MySQL's start with a 36-character uuid and a colon.
    return !set.isEmpty() && set.indexOf(':') < 0;
  }

  private static boolean mariaDbContains(String sup, String sub) {
    Map<Long, Long> highest = new HashMap<>();
    for (String gtid : elements(sup)) {
      long[] parts = mariaDb(gtid);
      highest.merge(parts[0], parts[2], Math::max);
    }
    for (String gtid : elements(sub)) {
      long[] parts = mariaDb(gtid);
      Long have = highest.get(parts[0]);
      if (have == null || Long.compareUnsigned(have, parts[2]) < 0) {
        return false;
      }
    }
    return true;
  }

  private static long[] mariaDb(String gtid) {
    String[] parts = gtid.split("-", -1);
    if (parts.length != 3) {
      throw new IllegalArgumentException(
          "'" + gtid + "' is not a MariaDB GTID (domain-server-sequence)");
    }
    return new long[] {
      Long.parseUnsignedLong(parts[0]),
      Long.parseUnsignedLong(parts[1]),
      Long.parseUnsignedLong(parts[2])
    };
  }

  private static Map<String, List<long[]>> mySql(String set) {
    Map<String, List<long[]>> out = new HashMap<>();
    for (String element : elements(set)) {
      String[] parts = element.split(":", -1);
      String uuid = parts[0].toLowerCase(Locale.ROOT);
      String key = uuid;
      for (int i = 1; i < parts.length; i++) {
        String part = parts[i];
        if (part.isEmpty()) {
          throw new IllegalArgumentException(
              "empty part in MySQL GTID set element '" + element + "'");
        }
        if (!Character.isDigit(part.charAt(0))) {
          key = uuid + ":" + part.toLowerCase(Locale.ROOT);
          continue;
        }
        int dash = part.indexOf('-');
        long first = Long.parseLong(dash < 0 ? part : part.substring(0, dash));
        long last = dash < 0 ? first : Long.parseLong(part.substring(dash + 1));
        out.computeIfAbsent(key, k -> new ArrayList<>()).add(new long[] {first, last});
      }
    }
    return out;
  }

  private static boolean mySqlContains(
      Map<String, List<long[]>> sup, Map<String, List<long[]>> sub) {
    for (Map.Entry<String, List<long[]>> entry : sub.entrySet()) {
      List<long[]> have = sup.getOrDefault(entry.getKey(), List.of());
      for (long[] need : entry.getValue()) {
        boolean covered = false;
        for (long[] range : have) {
          if (range[0] <= need[0] && need[1] <= range[1]) {
            covered = true;
            break;
          }
        }
        if (!covered) {
          return false;
        }
      }
    }
    return true;
  }

  private static List<String> elements(String set) {
    List<String> out = new ArrayList<>();
    for (String element : set.split(",")) {
      String trimmed = element.strip();
      if (!trimmed.isEmpty()) {
        out.add(trimmed);
      }
    }
    return out;
  }
}
