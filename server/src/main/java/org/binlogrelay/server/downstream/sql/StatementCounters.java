package org.binlogrelay.server.downstream.sql;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The server's statement counters: {@code Questions}, {@code Queries} and one {@code Com_xxx} per
 * kind of statement run ({@code Com_select}, {@code Com_set_option}, {@code
 * Com_show_replica_status} ...). Thread-safe (every event loop counts here).
 */
final class StatementCounters {
  private final ConcurrentHashMap<String, LongAdder> counts = new ConcurrentHashMap<>();

  void count(String counter) {
    counts.computeIfAbsent(counter, k -> new LongAdder()).increment();
  }

  long get(String counter) {
    LongAdder a = counts.get(counter);
    return a == null ? 0 : a.sum();
  }
}
