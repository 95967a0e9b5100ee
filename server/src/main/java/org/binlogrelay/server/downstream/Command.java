package org.binlogrelay.server.downstream;

/**
 * The command byte that starts every command-phase packet ({@code enum_server_command} in MySQL's
 * {@code my_command.h}). Names are MySQL's, for logs and transcripts.
 */
public enum Command {
  COM_SLEEP(0x00),
  COM_QUIT(0x01),
  COM_INIT_DB(0x02),
  COM_QUERY(0x03),
  COM_FIELD_LIST(0x04),
  COM_CREATE_DB(0x05),
  COM_DROP_DB(0x06),
  COM_REFRESH(0x07),
  COM_SHUTDOWN(0x08),
  COM_STATISTICS(0x09),
  COM_PROCESS_INFO(0x0a),
  COM_CONNECT(0x0b),
  COM_PROCESS_KILL(0x0c),
  COM_DEBUG(0x0d),
  COM_PING(0x0e),
  COM_TIME(0x0f),
  COM_DELAYED_INSERT(0x10),
  COM_CHANGE_USER(0x11),
  COM_BINLOG_DUMP(0x12),
  COM_TABLE_DUMP(0x13),
  COM_CONNECT_OUT(0x14),
  COM_REGISTER_SLAVE(0x15),
  COM_STMT_PREPARE(0x16),
  COM_STMT_EXECUTE(0x17),
  COM_STMT_SEND_LONG_DATA(0x18),
  COM_STMT_CLOSE(0x19),
  COM_STMT_RESET(0x1a),
  COM_SET_OPTION(0x1b),
  COM_STMT_FETCH(0x1c),
  COM_DAEMON(0x1d),
  COM_BINLOG_DUMP_GTID(0x1e),
  COM_RESET_CONNECTION(0x1f),
  COM_CLONE(0x20),
  COM_SUBSCRIBE_GROUP_REPLICATION_STREAM(0x21);

  private static final Command[] BY_CODE = new Command[0x22];

  static {
    for (Command c : values()) {
      BY_CODE[c.code] = c;
    }
  }

  private final int code;

  Command(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  /** The command with this code, or null for a code MySQL does not define. */
  public static Command of(int code) {
    return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
  }

  /** The name for logs: the command's name, or {@code COM_0x..} for an unknown code. */
  public static String nameOf(int code) {
    Command c = of(code);
    return c != null ? c.name() : String.format("COM_0x%02x", code);
  }
}
