package org.binlogrelay.server.downstream.sql;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.binlogrelay.protocol.query.ColumnDefinition;
import org.binlogrelay.protocol.query.ColumnType;

/**
 * MySQL's {@code performance_schema.replication_connection_status} and {@code
 * replication_connection_configuration}: one row for the relay's connection to its primary ({@link
 * SourceStatus}), none without a primary. Columns as in MySQL 9.7; timestamps in UTC with
 * microseconds, {@code 0000-00-00 00:00:00.000000} when unknown, as MySQL shows them. SERVICE_STATE
 * is ON while streaming, CONNECTING while (re)connecting, OFF otherwise. Stateless.
 */
final class ReplicationTables {
  static final String CONNECTION_STATUS = "replication_connection_status";
  static final String CONNECTION_CONFIGURATION = "replication_connection_configuration";
  private static final String NO_TIME = "0000-00-00 00:00:00.000000";
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS", Locale.ROOT)
          .withZone(ZoneOffset.UTC);

  private ReplicationTables() {}

  static ResultTable connectionStatus(Columns c, Optional<SourceStatus> status) {
    List<ColumnDefinition> cols =
        List.of(
            fixed("CHANNEL_NAME", 192),
            fixed("GROUP_NAME", 108),
            fixed("SOURCE_UUID", 108),
            number("THREAD_ID", ColumnType.LONGLONG, 20, false),
            fixed("SERVICE_STATE", 30),
            number("COUNT_RECEIVED_HEARTBEATS", ColumnType.LONGLONG, 20, true),
            time("LAST_HEARTBEAT_TIMESTAMP"),
            c.text("RECEIVED_TRANSACTION_SET", 4294967295L, true),
            number("LAST_ERROR_NUMBER", ColumnType.LONG, 11, true),
            c.text("LAST_ERROR_MESSAGE", 3072, true),
            time("LAST_ERROR_TIMESTAMP"),
            fixed("LAST_QUEUED_TRANSACTION", 270),
            time("LAST_QUEUED_TRANSACTION_ORIGINAL_COMMIT_TIMESTAMP"),
            time("LAST_QUEUED_TRANSACTION_IMMEDIATE_COMMIT_TIMESTAMP"),
            time("LAST_QUEUED_TRANSACTION_START_QUEUE_TIMESTAMP"),
            time("LAST_QUEUED_TRANSACTION_END_QUEUE_TIMESTAMP"),
            fixed("QUEUEING_TRANSACTION", 270),
            time("QUEUEING_TRANSACTION_ORIGINAL_COMMIT_TIMESTAMP"),
            time("QUEUEING_TRANSACTION_IMMEDIATE_COMMIT_TIMESTAMP"),
            time("QUEUEING_TRANSACTION_START_QUEUE_TIMESTAMP"));
    List<List<String>> rows = new ArrayList<>();
    status.ifPresent(
        s -> {
          String state =
              s.io() == SourceStatus.IoState.STREAMING
                  ? "ON"
                  : s.io() == SourceStatus.IoState.CONNECTING
                          || s.io() == SourceStatus.IoState.RECONNECTING
                      ? "CONNECTING"
                      : "OFF";
          rows.add(
              ResultTable.row(
                  "",
                  "",
                  s.sourceUuid(),
                  null,
                  state,
                  Long.toString(s.heartbeats()),
                  millis(s.lastHeartbeatMillis()),
                  s.retrievedGtids(),
                  Integer.toString(s.lastIoErrno()),
                  s.lastIoError(),
                  s.lastIoError().isEmpty() ? NO_TIME : millis(s.lastIoErrorMillis()),
                  s.lastGtid(),
                  micros(s.lastOriginalCommitMicros()),
                  micros(s.lastImmediateCommitMicros()),
                  NO_TIME,
                  NO_TIME,
                  "",
                  NO_TIME,
                  NO_TIME,
                  NO_TIME));
        });
    return new ResultTable(cols, rows);
  }

  static ResultTable connectionConfiguration(Columns c, Optional<SourceStatus> status) {
    List<ColumnDefinition> cols =
        List.of(
            fixed("CHANNEL_NAME", 192),
            fixed("HOST", 765),
            number("PORT", ColumnType.LONG, 11, true),
            fixed("USER", 96),
            fixed("NETWORK_INTERFACE", 180),
            fixed("AUTO_POSITION", 3),
            fixed("SSL_ALLOWED", 21),
            c.text("SSL_CA_FILE", 1536, true),
            c.text("SSL_CA_PATH", 1536, true),
            c.text("SSL_CERTIFICATE", 1536, true),
            c.text("SSL_CIPHER", 1536, true),
            c.text("SSL_KEY", 1536, true),
            fixed("SSL_VERIFY_SERVER_CERTIFICATE", 9),
            c.text("SSL_CRL_FILE", 765, true),
            c.text("SSL_CRL_PATH", 765, true),
            number("CONNECTION_RETRY_INTERVAL", ColumnType.LONG, 11, true),
            number("CONNECTION_RETRY_COUNT", ColumnType.LONGLONG, 20, true),
            ColumnDefinition.computed(
                "HEARTBEAT_INTERVAL",
                ColumnDefinition.BINARY,
                10,
                ColumnType.DOUBLE,
                ColumnDefinition.NOT_NULL_FLAG | ColumnDefinition.NUM_FLAG,
                3),
            c.text("TLS_VERSION", 765, true),
            c.text("PUBLIC_KEY_PATH", 1536, true),
            fixed("GET_PUBLIC_KEY", 9),
            c.text("NETWORK_NAMESPACE", 192, true),
            fixed("COMPRESSION_ALGORITHM", 192),
            number("ZSTD_COMPRESSION_LEVEL", ColumnType.LONG, 11, true),
            c.userString("TLS_CIPHERSUITES"),
            fixed("SOURCE_CONNECTION_AUTO_FAILOVER", 3),
            fixed("GTID_ONLY", 3));
    List<List<String>> rows = new ArrayList<>();
    status.ifPresent(
        s ->
            rows.add(
                ResultTable.row(
                    "",
                    s.host(),
                    Integer.toString(s.port()),
                    s.user(),
                    "",
                    s.autoPosition() ? "1" : "0",
                    s.tlsAllowed() ? "YES" : "NO",
                    s.tlsCa(),
                    "",
                    s.tlsCert(),
                    "",
                    s.tlsKey(),
                    s.tlsVerify() ? "YES" : "NO",
                    "",
                    "",
                    Long.toString(s.connectRetrySeconds()),
                    "0",
                    String.format(Locale.ROOT, "%.3f", s.heartbeatPeriodSeconds()),
                    "",
                    "",
                    "YES",
                    "",
                    "uncompressed",
                    "3",
                    null,
                    "0",
                    "0")));
    return new ResultTable(cols, rows);
  }

  private static ColumnDefinition fixed(String name, long length) {
    return ColumnDefinition.computed(
        name, 33, length, ColumnType.STRING, ColumnDefinition.NOT_NULL_FLAG, 0);
  }

  private static ColumnDefinition number(
      String name, ColumnType type, long length, boolean notNull) {
    return ColumnDefinition.computed(
        name,
        ColumnDefinition.BINARY,
        length,
        type,
        (notNull ? ColumnDefinition.NOT_NULL_FLAG : 0)
            | ColumnDefinition.NUM_FLAG
            | (type == ColumnType.LONGLONG ? ColumnDefinition.UNSIGNED_FLAG : 0),
        0);
  }

  private static ColumnDefinition time(String name) {
    return ColumnDefinition.computed(
        name,
        ColumnDefinition.BINARY,
        26,
        ColumnType.TIMESTAMP,
        ColumnDefinition.NOT_NULL_FLAG | ColumnDefinition.BINARY_FLAG,
        6);
  }

  private static String millis(long epochMillis) {
    return epochMillis <= 0 ? NO_TIME : TIME.format(Instant.ofEpochMilli(epochMillis));
  }

  private static String micros(long epochMicros) {
    return epochMicros <= 0
        ? NO_TIME
        : TIME.format(
            Instant.ofEpochSecond(epochMicros / 1_000_000, (epochMicros % 1_000_000) * 1000));
  }
}
