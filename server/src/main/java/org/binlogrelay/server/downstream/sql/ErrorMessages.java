package org.binlogrelay.server.downstream.sql;

import org.binlogrelay.protocol.packet.ErrPacket;

/**
 * The errors the relay sends, with MySQL's codes, SQL states and wording
 * (share/messages_to_clients.txt, checked against MySQL 9.7 and MariaDB 10.11), so that replicas
 * react to them as to a real server's and DBAs recognise them. Stateless.
 */
public final class ErrorMessages {
  public static final int ER_CON_COUNT_ERROR = 1040;
  public static final int ER_HANDSHAKE_ERROR = 1043;
  public static final int ER_ACCESS_DENIED_ERROR = 1045;
  public static final int ER_NO_DB_ERROR = 1046;
  public static final int ER_UNKNOWN_COM_ERROR = 1047;
  public static final int ER_PARSE_ERROR = 1064;
  public static final int ER_UNKNOWN_CHARACTER_SET = 1115;
  public static final int ER_HOST_IS_BLOCKED = 1129;
  public static final int ER_NET_PACKET_TOO_LARGE = 1153;
  public static final int ER_UNKNOWN_SYSTEM_VARIABLE = 1193;
  public static final int ER_SPECIFIC_ACCESS_DENIED_ERROR = 1227;
  public static final int ER_GLOBAL_VARIABLE = 1229;
  public static final int ER_WRONG_VALUE_FOR_VAR = 1231;
  public static final int ER_WRONG_TYPE_FOR_VAR = 1232;
  public static final int ER_SOURCE_FATAL_ERROR_READING_BINLOG = 1236;
  public static final int ER_INCORRECT_GLOBAL_LOCAL_VAR = 1238;
  public static final int ER_NOT_SUPPORTED_AUTH_MODE = 1251;
  public static final int ER_SP_DOES_NOT_EXIST = 1305;
  public static final int ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT = 1582;
  public static final int ER_EMPTY_QUERY = 1065;
  public static final int ER_BAD_DB_ERROR = 1049;
  public static final int ER_BAD_FIELD_ERROR = 1054;
  public static final int ER_NO_SUCH_THREAD = 1094;
  public static final int ER_KILL_DENIED_ERROR = 1095;
  public static final int ER_ERROR_WHEN_EXECUTING_COMMAND = 1220;
  public static final int ER_NOT_SUPPORTED_YET = 1235;
  public static final int ER_CANT_CHANGE_TX_CHARACTERISTICS = 1568;
  public static final int ER_MASTER_CONNECTION_NOT_FOUND = 1617;
  public static final int ER_MALFORMED_GTID_SET_SPECIFICATION = 1772;
  public static final int ER_REPLICA_CHANNEL_DOES_NOT_EXIST = 3074;
  public static final int ER_SECURE_TRANSPORT_REQUIRED = 3159;
  public static final int ER_CLIENT_INTERACTION_TIMEOUT = 4031;

  private ErrorMessages() {}

  public static ErrPacket accessDenied(String user, String host, boolean passwordUsed) {
    return new ErrPacket(
        ER_ACCESS_DENIED_ERROR,
        "28000",
        "Access denied for user '"
            + cut(user, 48)
            + "'@'"
            + cut(host, 64)
            + "' (using password: "
            + (passwordUsed ? "YES" : "NO")
            + ")");
  }

  /** {@code privileges} as MySQL lists them, e.g. {@code SUPER, REPLICATION CLIENT}. */
  public static ErrPacket specificAccessDenied(String privileges) {
    return new ErrPacket(
        ER_SPECIFIC_ACCESS_DENIED_ERROR,
        "42000",
        "Access denied; you need (at least one of) the "
            + cut(privileges, 128)
            + " privilege(s) for this operation");
  }

  /** {@code product} is "MySQL" or "MariaDB", as each server names itself in this message. */
  public static ErrPacket parseError(String product, String near, int line) {
    return new ErrPacket(
        ER_PARSE_ERROR,
        "42000",
        "You have an error in your SQL syntax; check the manual that"
            + " corresponds to your "
            + product
            + " server version for the right syntax to use near '"
            + cut(near, 80)
            + "' at line "
            + line);
  }

  public static ErrPacket unknownSystemVariable(String name) {
    return new ErrPacket(
        ER_UNKNOWN_SYSTEM_VARIABLE, "HY000", "Unknown system variable '" + cut(name, 64) + "'");
  }

  /** Reading {@code @@session.x} of a global-only variable. */
  public static ErrPacket globalOnlyVariable(String name) {
    return new ErrPacket(
        ER_INCORRECT_GLOBAL_LOCAL_VAR,
        "HY000",
        "Variable '" + cut(name, 64) + "' is a GLOBAL variable");
  }

  /** {@code SET [SESSION] x} of a global-only variable. */
  public static ErrPacket setGlobalVariableInSession(String name) {
    return new ErrPacket(
        ER_GLOBAL_VARIABLE,
        "HY000",
        "Variable '" + cut(name, 64) + "' is a GLOBAL variable and should be set with SET GLOBAL");
  }

  public static ErrPacket wrongValueForVariable(String name, String value) {
    return new ErrPacket(
        ER_WRONG_VALUE_FOR_VAR,
        "42000",
        "Variable '" + cut(name, 64) + "' can't be set to the value of '" + cut(value, 200) + "'");
  }

  public static ErrPacket wrongTypeForVariable(String name) {
    return new ErrPacket(
        ER_WRONG_TYPE_FOR_VAR,
        "42000",
        "Incorrect argument type to variable '" + cut(name, 64) + "'");
  }

  public static ErrPacket unknownCommand() {
    return new ErrPacket(ER_UNKNOWN_COM_ERROR, "08S01", "Unknown command");
  }

  public static ErrPacket tooManyConnections() {
    return new ErrPacket(ER_CON_COUNT_ERROR, "08004", "Too many connections");
  }

  public static ErrPacket hostBlocked(String host, long seconds) {
    return new ErrPacket(
        ER_HOST_IS_BLOCKED,
        "HY000",
        "Host '"
            + cut(host, 64)
            + "' is blocked because of many"
            + " connection errors; binlog-relay unblocks it in "
            + seconds
            + " s");
  }

  public static ErrPacket packetTooLarge() {
    return new ErrPacket(
        ER_NET_PACKET_TOO_LARGE, "08S01", "Got a packet bigger than 'max_allowed_packet' bytes");
  }

  public static ErrPacket badHandshake() {
    return new ErrPacket(ER_HANDSHAKE_ERROR, "08S01", "Bad handshake");
  }

  public static ErrPacket noDatabaseSelected() {
    return new ErrPacket(ER_NO_DB_ERROR, "3D000", "No database selected");
  }

  public static ErrPacket functionDoesNotExist(String qualifiedName) {
    return new ErrPacket(
        ER_SP_DOES_NOT_EXIST, "42000", "FUNCTION " + cut(qualifiedName, 128) + " does not exist");
  }

  public static ErrPacket wrongParameterCount(String function) {
    return new ErrPacket(
        ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT,
        "42000",
        "Incorrect parameter count in the call to native"
            + " function '"
            + cut(function, 64)
            + "'");
  }

  public static ErrPacket emptyQuery() {
    return new ErrPacket(ER_EMPTY_QUERY, "42000", "Query was empty");
  }

  public static ErrPacket unknownCharacterSet(String name) {
    return new ErrPacket(
        ER_UNKNOWN_CHARACTER_SET, "42000", "Unknown character set: '" + cut(name, 64) + "'");
  }

  public static ErrPacket fatalReadingBinlog(String message) {
    return new ErrPacket(ER_SOURCE_FATAL_ERROR_READING_BINLOG, "HY000", message);
  }

  public static ErrPacket notSupportedAuthMode() {
    return new ErrPacket(
        ER_NOT_SUPPORTED_AUTH_MODE,
        "08004",
        "Client does not support authentication protocol"
            + " requested by server; consider upgrading MySQL client");
  }

  public static ErrPacket secureTransportRequired() {
    return new ErrPacket(
        ER_SECURE_TRANSPORT_REQUIRED,
        "HY000",
        "Connections using insecure transport are prohibited"
            + " while --require_secure_transport=ON.");
  }

  public static ErrPacket clientInteractionTimeout() {
    return new ErrPacket(
        ER_CLIENT_INTERACTION_TIMEOUT,
        "HY000",
        "The client was disconnected by the server because of"
            + " inactivity. See wait_timeout and interactive_timeout for configuring this behavior.");
  }

  /**
   * ER_NOT_SUPPORTED_YET as MySQL words it ("This version of MySQL doesn't yet support '...'"),
   * naming the relay: valid SQL the relay does not execute.
   */
  public static ErrPacket notSupportedYet(String what) {
    return new ErrPacket(
        ER_NOT_SUPPORTED_YET,
        "42000",
        "This version of binlog-relay doesn't yet support '" + cut(what, 128) + "'");
  }

  public static ErrPacket unknownThread(String id) {
    return new ErrPacket(ER_NO_SUCH_THREAD, "HY000", "Unknown thread id: " + cut(id, 64));
  }

  public static ErrPacket killDenied(long id) {
    return new ErrPacket(ER_KILL_DENIED_ERROR, "HY000", "You are not owner of thread " + id);
  }

  /**
   * {@code where} is the clause as the server names it: 'field list', 'where clause' (MySQL),
   * 'SELECT' (MariaDB).
   */
  public static ErrPacket unknownColumn(String column, String where) {
    return new ErrPacket(
        ER_BAD_FIELD_ERROR,
        "42S22",
        "Unknown column '" + cut(column, 192) + "' in '" + where + "'");
  }

  /** ER_ILLEGAL_VALUE_FOR_TYPE for a number literal out of a double's range. */
  public static ErrPacket illegalDouble(String text) {
    return new ErrPacket(
        1367, "22007", "Illegal double '" + cut(text, 64) + "' value found during parsing");
  }

  /** {@code SELECT *} without a table (ER_NO_TABLES_USED). */
  public static ErrPacket noTablesUsed() {
    return new ErrPacket(1096, "HY000", "No tables used");
  }

  public static ErrPacket unknownDatabase(String name) {
    return new ErrPacket(ER_BAD_DB_ERROR, "42000", "Unknown database '" + cut(name, 64) + "'");
  }

  public static ErrPacket malformedGtidSet(String why) {
    return new ErrPacket(
        ER_MALFORMED_GTID_SET_SPECIFICATION,
        "HY000",
        "Malformed GTID set specification '" + cut(why, 400) + "'.");
  }

  /**
   * {@code command} such as {@code SHOW BINLOG EVENTS}, {@code why} such as "Could not find target
   * log".
   */
  public static ErrPacket errorWhenExecuting(String command, String why) {
    return new ErrPacket(
        ER_ERROR_WHEN_EXECUTING_COMMAND,
        "HY000",
        "Error when executing command " + command + ": " + cut(why, 256));
  }

  public static ErrPacket cannotChangeTransactionCharacteristics() {
    return new ErrPacket(
        ER_CANT_CHANGE_TX_CHARACTERISTICS,
        "25001",
        "Transaction characteristics can't be changed" + " while a transaction is in progress");
  }

  /** MySQL: {@code SHOW REPLICA STATUS FOR CHANNEL 'x'} of a channel that does not exist. */
  public static ErrPacket noSuchChannel(String channel) {
    return new ErrPacket(
        ER_REPLICA_CHANNEL_DOES_NOT_EXIST,
        "HY000",
        "Replica channel '" + cut(channel, 64) + "' does not exist.");
  }

  /** MariaDB: {@code SHOW SLAVE 'x' STATUS} of a connection that does not exist. */
  public static ErrPacket noSuchMasterConnection(String name) {
    return new ErrPacket(
        ER_MASTER_CONNECTION_NOT_FOUND,
        "HY000",
        "There is no master connection '" + cut(name, 64) + "'");
  }

  /** MySQL's {@code %-.Ns}: at most {@code n} characters. */
  static String cut(String s, int n) {
    return s.length() <= n ? s : s.substring(0, n);
  }
}
