package org.binlogrelay.server.downstream.sql;

import java.util.List;

/**
 * The variables MySQL and MariaDB share and that replicas, binlog clients and connectors read on connect
 * (taken from captured transcripts: Connector/J reads twenty of them at once; replicas read
 * {@code server_id}, {@code binlog_checksum}; tools read {@code version_comment}). Values describe the
 * relay, not its upstream: a relay stores binlogs with CRC32 in ROW format and is read-only. Stateless.
 */
final class CommonVariables {
  private CommonVariables() {}

  static List<SystemVariable> of(ServerIdentity id, Dialect d) {
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
        SystemVariable.global("binlog_format", VariableType.STRING, "ROW"),
        SystemVariable.global("binlog_row_image", VariableType.STRING, "FULL"),
        SystemVariable.global("binlog_checksum", VariableType.STRING, "CRC32"),
        SystemVariable.global("read_only", VariableType.BOOLEAN, "1"),
        SystemVariable.global("lower_case_table_names", VariableType.UNSIGNED, "0"),
        SystemVariable.global("performance_schema", VariableType.BOOLEAN, "0"),
        SystemVariable.global("have_ssl", VariableType.STRING, "YES"),
        SystemVariable.global("system_time_zone", VariableType.STRING, "UTC"),
        SystemVariable.global("character_set_system", VariableType.STRING, "utf8mb3"),
        SystemVariable.global("init_connect", VariableType.STRING, ""),
        SystemVariable.global("max_connections", VariableType.UNSIGNED, "151"),
        SystemVariable.session("max_allowed_packet", VariableType.UNSIGNED, Long.toString(id.maxAllowedPacket())),
        SystemVariable.session("wait_timeout", VariableType.UNSIGNED, Long.toString(id.waitTimeoutSeconds())),
        SystemVariable.session("interactive_timeout", VariableType.UNSIGNED, Long.toString(id.waitTimeoutSeconds())),
        SystemVariable.session("net_write_timeout", VariableType.UNSIGNED, "60"),
        SystemVariable.session("net_read_timeout", VariableType.UNSIGNED, "30"),
        SystemVariable.session("auto_increment_increment", VariableType.UNSIGNED, "1"),
        SystemVariable.session("auto_increment_offset", VariableType.UNSIGNED, "1"),
        SystemVariable.session("autocommit", VariableType.BOOLEAN, "1"),
        SystemVariable.session("sql_log_bin", VariableType.BOOLEAN, "1"),
        SystemVariable.session("time_zone", VariableType.STRING, "SYSTEM"),
        SystemVariable.session("character_set_client", VariableType.STRING, charset),
        SystemVariable.session("character_set_connection", VariableType.STRING, charset),
        SystemVariable.session("character_set_results", VariableType.STRING, charset).withNullable(),
        SystemVariable.session("character_set_server", VariableType.STRING, charset),
        SystemVariable.session("character_set_database", VariableType.STRING, charset),
        SystemVariable.session("collation_connection", VariableType.STRING, d.collation()),
        SystemVariable.session("collation_server", VariableType.STRING, d.collation()),
        SystemVariable.session("collation_database", VariableType.STRING, d.collation()));
  }
}
