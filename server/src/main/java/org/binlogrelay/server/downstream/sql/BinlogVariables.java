package org.binlogrelay.server.downstream.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * The binlog variables ({@code SHOW VARIABLES LIKE 'binlog%'} and the {@code max_binlog_*} sizes)
 * of a MySQL 9.7 or MariaDB 10.11 server, with the values a relay truthfully has:
 *
 * <ul>
 *   <li><b>The primary's</b>, for what describes the events the relay stores and serves byte for
 *       byte, which the primary wrote: format, row image and metadata, checksum, compression,
 *       annotations, cache and group-commit settings, file size. Read from the primary at each
 *       upstream connection ({@link ReplicationSource#primaryVariables()}); until the first
 *       connection, or without a primary, the server's default.
 *   <li><b>The relay's own</b>, for what describes its own storage: encryption (the relay's files
 *       are not encrypted: OFF), what it does when it cannot write (it stops writing and goes on
 *       serving: IGNORE_ERROR), expiry and sync (its retention and sync policy, set by whoever
 *       composes the relay through {@code extraVariables}; 0 / OFF / 0 by default).
 * </ul>
 *
 * Stateless.
 */
final class BinlogVariables {
  private BinlogVariables() {}

  static List<SystemVariable> mysql(ReplicationSource source) {
    List<SystemVariable> v = new ArrayList<>();
    v.add(mirrored(source, "binlog_cache_size", VariableType.UNSIGNED, "32768", false));
    v.add(mirrored(source, "binlog_checksum", VariableType.STRING, "CRC32", false));
    v.add(
        mirrored(
            source, "binlog_direct_non_transactional_updates", VariableType.BOOLEAN, "0", true));
    v.add(SystemVariable.global("binlog_encryption", VariableType.BOOLEAN, "0"));
    v.add(SystemVariable.global("binlog_error_action", VariableType.STRING, "IGNORE_ERROR"));
    v.add(SystemVariable.global("binlog_expire_logs_auto_purge", VariableType.BOOLEAN, "0"));
    v.add(SystemVariable.global("binlog_expire_logs_seconds", VariableType.UNSIGNED, "0"));
    v.add(mirrored(source, "binlog_format", VariableType.STRING, "ROW", true));
    v.add(mirrored(source, "binlog_group_commit_sync_delay", VariableType.UNSIGNED, "0", false));
    v.add(
        mirrored(
            source, "binlog_group_commit_sync_no_delay_count", VariableType.UNSIGNED, "0", false));
    v.add(mirrored(source, "binlog_gtid_simple_recovery", VariableType.BOOLEAN, "1", false));
    v.add(mirrored(source, "binlog_max_flush_queue_time", VariableType.UNSIGNED, "0", false));
    v.add(mirrored(source, "binlog_order_commits", VariableType.BOOLEAN, "1", false));
    v.add(
        SystemVariable.global(
            "binlog_rotate_encryption_master_key_at_startup", VariableType.BOOLEAN, "0"));
    v.add(mirrored(source, "binlog_row_event_max_size", VariableType.UNSIGNED, "8192", false));
    v.add(mirrored(source, "binlog_row_image", VariableType.STRING, "FULL", true));
    v.add(mirrored(source, "binlog_row_metadata", VariableType.STRING, "MINIMAL", false));
    v.add(mirrored(source, "binlog_row_value_options", VariableType.STRING, "", true));
    v.add(mirrored(source, "binlog_rows_query_log_events", VariableType.BOOLEAN, "0", true));
    v.add(mirrored(source, "binlog_stmt_cache_size", VariableType.UNSIGNED, "32768", false));
    v.add(mirrored(source, "binlog_transaction_compression", VariableType.BOOLEAN, "0", true));
    v.add(
        mirrored(
            source, "binlog_transaction_compression_level_zstd", VariableType.UNSIGNED, "3", true));
    v.add(
        mirrored(
            source,
            "binlog_transaction_dependency_history_size",
            VariableType.UNSIGNED,
            "25000",
            false));
    v.addAll(sizes(source));
    v.add(SystemVariable.global("sync_binlog", VariableType.UNSIGNED, "0"));
    return v;
  }

  static List<SystemVariable> mariadb(ReplicationSource source) {
    List<SystemVariable> v = new ArrayList<>();
    v.add(mirrored(source, "binlog_alter_two_phase", VariableType.BOOLEAN, "0", false));
    v.add(mirrored(source, "binlog_annotate_row_events", VariableType.BOOLEAN, "1", true));
    v.add(mirrored(source, "binlog_cache_size", VariableType.UNSIGNED, "32768", false));
    v.add(mirrored(source, "binlog_checksum", VariableType.STRING, "CRC32", false));
    v.add(mirrored(source, "binlog_commit_wait_count", VariableType.UNSIGNED, "0", false));
    v.add(mirrored(source, "binlog_commit_wait_usec", VariableType.UNSIGNED, "100000", false));
    v.add(
        mirrored(
            source, "binlog_direct_non_transactional_updates", VariableType.BOOLEAN, "0", true));
    v.add(SystemVariable.global("binlog_expire_logs_seconds", VariableType.UNSIGNED, "0"));
    v.add(mirrored(source, "binlog_file_cache_size", VariableType.UNSIGNED, "16384", false));
    v.add(mirrored(source, "binlog_format", VariableType.STRING, "ROW", true));
    v.add(mirrored(source, "binlog_optimize_thread_scheduling", VariableType.BOOLEAN, "1", false));
    v.add(mirrored(source, "binlog_row_image", VariableType.STRING, "FULL", true));
    v.add(mirrored(source, "binlog_row_metadata", VariableType.STRING, "NO_LOG", false));
    v.add(mirrored(source, "binlog_stmt_cache_size", VariableType.UNSIGNED, "32768", false));
    v.add(SystemVariable.global("encrypt_binlog", VariableType.BOOLEAN, "0"));
    v.add(SystemVariable.global("expire_logs_days", VariableType.STRING, "0.000000"));
    v.add(SystemVariable.global("read_binlog_speed_limit", VariableType.UNSIGNED, "0"));
    v.addAll(sizes(source));
    v.add(SystemVariable.global("sync_binlog", VariableType.UNSIGNED, "0"));
    return v;
  }

  private static List<SystemVariable> sizes(ReplicationSource source) {
    return List.of(
        mirrored(source, "max_binlog_size", VariableType.UNSIGNED, "1073741824", false),
        mirrored(
            source, "max_binlog_cache_size", VariableType.UNSIGNED, "18446744073709547520", false),
        mirrored(
            source,
            "max_binlog_stmt_cache_size",
            VariableType.UNSIGNED,
            "18446744073709547520",
            false));
  }

  /**
   * A variable whose global value is the primary's, or {@code fallback} until the relay has read
   * it.
   */
  static SystemVariable mirrored(
      ReplicationSource source, String name, VariableType type, String fallback, boolean session) {
    Supplier<String> value =
        () -> {
          String v = source.primaryVariables().get(name);
          if (v == null) {
            return fallback;
          }
          if (type == VariableType.BOOLEAN) {
            String upper = v.toUpperCase(Locale.ROOT);
            return upper.equals("ON") || upper.equals("1") ? "1" : "0";
          }
          return v;
        };
    return session
        ? SystemVariable.liveSession(name, type, value)
        : SystemVariable.live(name, type, value);
  }
}
