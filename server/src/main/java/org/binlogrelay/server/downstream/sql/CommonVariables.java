package org.binlogrelay.server.downstream.sql;

import java.util.ArrayList;
import java.util.List;

/**
 * The variables MySQL and MariaDB share and that replicas, binlog clients, connectors and
 * monitoring agents read on connect (taken from captured transcripts: Connector/J reads twenty of
 * them at once; replicas read {@code server_id}; tools read {@code version_comment}), and the
 * session variables JDBC drivers, CDC connectors and agents set ({@code lock_wait_timeout}, {@code
 * innodb_lock_wait_timeout}, {@code sql_select_limit}, {@code session_track_*} ...): a session may
 * set them and reads back what it set; they change nothing else in the relay. Values describe the
 * relay, not its upstream: it is read-only. The binlog variables are {@link BinlogVariables}'.
 * Stateless.
 */
final class CommonVariables {
  private CommonVariables() {}

  static List<SystemVariable> of(ServerIdentity id, SqlFlavor d) {
    List<SystemVariable> v = new ArrayList<>(identity(id, d));
    v.addAll(clientSession());
    return v;
  }

  /**
   * What JDBC drivers, connectors and agents set or read per session; defaults as on MySQL 9.7 and
   * MariaDB 10.11.
   */
  private static List<SystemVariable> clientSession() {
    return List.of(
        SystemVariable.session("innodb_lock_wait_timeout", VariableType.UNSIGNED, "50"),
        SystemVariable.session("sql_select_limit", VariableType.UNSIGNED, "18446744073709551615"),
        SystemVariable.session("session_track_schema", VariableType.BOOLEAN, "1"),
        SystemVariable.session("session_track_state_change", VariableType.BOOLEAN, "0"),
        SystemVariable.session("session_track_transaction_info", VariableType.STRING, "OFF")
            .withAllowed("OFF", "STATE", "CHARACTERISTICS"),
        SystemVariable.session("sql_auto_is_null", VariableType.BOOLEAN, "0"),
        SystemVariable.session("sql_safe_updates", VariableType.BOOLEAN, "0"),
        SystemVariable.session("sql_quote_show_create", VariableType.BOOLEAN, "1"),
        SystemVariable.session("sql_big_selects", VariableType.BOOLEAN, "1"),
        SystemVariable.session("sql_notes", VariableType.BOOLEAN, "1"),
        SystemVariable.session("sql_warnings", VariableType.BOOLEAN, "0"),
        SystemVariable.session("foreign_key_checks", VariableType.BOOLEAN, "1"),
        SystemVariable.session("unique_checks", VariableType.BOOLEAN, "1"),
        SystemVariable.session("explicit_defaults_for_timestamp", VariableType.BOOLEAN, "1"),
        SystemVariable.session("innodb_strict_mode", VariableType.BOOLEAN, "1"),
        SystemVariable.session("default_storage_engine", VariableType.STRING, "InnoDB"),
        SystemVariable.session("div_precision_increment", VariableType.UNSIGNED, "4"),
        SystemVariable.session("net_buffer_length", VariableType.UNSIGNED, "16384"),
        SystemVariable.session("net_retry_count", VariableType.UNSIGNED, "10"),
        SystemVariable.session("max_join_size", VariableType.UNSIGNED, "18446744073709551615"),
        SystemVariable.session("long_query_time", VariableType.STRING, "10.000000"),
        SystemVariable.session("character_set_filesystem", VariableType.STRING, "binary"),
        SystemVariable.session("default_week_format", VariableType.UNSIGNED, "0"),
        SystemVariable.session("tmp_table_size", VariableType.UNSIGNED, "16777216"),
        SystemVariable.global("protocol_version", VariableType.UNSIGNED, "10"),
        SystemVariable.global("tls_version", VariableType.STRING, "TLSv1.2,TLSv1.3"),
        SystemVariable.global("ssl_cipher", VariableType.STRING, ""),
        SystemVariable.global("slave_net_timeout", VariableType.UNSIGNED, "60"));
  }

  private static List<SystemVariable> identity(ServerIdentity id, SqlFlavor d) {
    String charset = d.characterSet();
    return List.of(
        SystemVariable.global("server_id", VariableType.UNSIGNED, Long.toString(id.serverId())),
        SystemVariable.global("version", VariableType.STRING, id.version()),
        SystemVariable.global("version_comment", VariableType.STRING, id.versionComment()),
        SystemVariable.global("version_compile_os", VariableType.STRING, "Linux"),
        SystemVariable.global("version_compile_machine", VariableType.STRING, "x86_64"),
        SystemVariable.global("hostname", VariableType.STRING, id.hostname()),
        SystemVariable.global("port", VariableType.UNSIGNED, Integer.toString(id.port())),
        SystemVariable.global("license", VariableType.STRING, "GPL"),
        SystemVariable.global("log_bin", VariableType.BOOLEAN, "1"),
        SystemVariable.global("read_only", VariableType.BOOLEAN, "1"),
        SystemVariable.global("lower_case_table_names", VariableType.UNSIGNED, "0"),
        SystemVariable.global("performance_schema", VariableType.BOOLEAN, "0"),
        SystemVariable.global("have_ssl", VariableType.STRING, "YES"),
        SystemVariable.global("system_time_zone", VariableType.STRING, "UTC"),
        SystemVariable.global("character_set_system", VariableType.STRING, "utf8mb3"),
        SystemVariable.global("init_connect", VariableType.STRING, ""),
        SystemVariable.global("max_connections", VariableType.UNSIGNED, "151"),
        SystemVariable.session(
            "max_allowed_packet", VariableType.UNSIGNED, Long.toString(id.maxAllowedPacket())),
        SystemVariable.session(
            "wait_timeout", VariableType.UNSIGNED, Long.toString(id.waitTimeoutSeconds())),
        SystemVariable.session(
            "interactive_timeout", VariableType.UNSIGNED, Long.toString(id.waitTimeoutSeconds())),
        SystemVariable.session("net_write_timeout", VariableType.UNSIGNED, "60"),
        SystemVariable.session("net_read_timeout", VariableType.UNSIGNED, "30"),
        SystemVariable.session("auto_increment_increment", VariableType.UNSIGNED, "1"),
        SystemVariable.session("auto_increment_offset", VariableType.UNSIGNED, "1"),
        SystemVariable.session("autocommit", VariableType.BOOLEAN, "1"),
        SystemVariable.session("sql_log_bin", VariableType.BOOLEAN, "1"),
        SystemVariable.session("time_zone", VariableType.STRING, "SYSTEM"),
        SystemVariable.session("character_set_client", VariableType.STRING, charset),
        SystemVariable.session("character_set_connection", VariableType.STRING, charset),
        SystemVariable.session("character_set_results", VariableType.STRING, charset)
            .withNullable(),
        SystemVariable.session("character_set_server", VariableType.STRING, charset),
        SystemVariable.session("character_set_database", VariableType.STRING, charset),
        SystemVariable.session("collation_connection", VariableType.STRING, d.collation()),
        SystemVariable.session("collation_server", VariableType.STRING, d.collation()),
        SystemVariable.session("collation_database", VariableType.STRING, d.collation()));
  }
}
