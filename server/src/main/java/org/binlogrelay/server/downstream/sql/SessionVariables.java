package org.binlogrelay.server.downstream.sql;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.binlogrelay.protocol.packet.OkPacket;

/**
 * One connection's state that statements change: user variables ({@code SET @master_binlog_checksum
 * = ...}, {@code @slave_connect_state}, {@code @master_heartbeat_period} ...), session values of
 * system variables, the current database, whether a transaction is open ({@code BEGIN} ... {@code
 * COMMIT}), and the session's statement counters ({@code SHOW SESSION STATUS LIKE 'Com_%'}). A
 * replica's dump reads several of these.
 *
 * <p>Transactions: the relay changes no data, so a transaction only changes what the server status
 * flags of its answers say, as on a MySQL session that changed nothing: {@code
 * SERVER_STATUS_IN_TRANS} (and {@code _IN_TRANS_READONLY}) from {@code BEGIN} / {@code START
 * TRANSACTION} until {@code COMMIT}, {@code ROLLBACK} or {@code SET autocommit = 1}; {@code
 * SERVER_STATUS_AUTOCOMMIT} while {@code autocommit} is 1.
 *
 * <p>Hard limits: at most {@link #MAX_USER_VARIABLES} user variables and {@link #MAX_VALUE_CHARS}
 * characters per value, so a client cannot grow a connection's memory without bound; past them
 * {@link #setUser} refuses.
 *
 * <p>Not thread-safe: owned by the connection's event loop.
 */
public final class SessionVariables {
  public static final int MAX_USER_VARIABLES = 1024;
  public static final int MAX_VALUE_CHARS = 65_536;

  /** Bytes a connection sent and received, for {@code SHOW SESSION STATUS}. */
  public interface Traffic {
    Traffic NONE =
        new Traffic() {
          @Override
          public long bytesSent() {
            return 0;
          }

          @Override
          public long bytesReceived() {
            return 0;
          }
        };

    long bytesSent();

    long bytesReceived();
  }

  private final Map<String, UserValue> user = new HashMap<>();
  private final Map<String, String> system = new HashMap<>();
  private final Map<String, Long> counters = new HashMap<>();
  private String database;
  private boolean inTransaction;
  private boolean readOnlyTransaction;
  private Traffic traffic = Traffic.NONE;
  private boolean closeRequested;

  /** The user variable, NULL if never set (names are case-insensitive). */
  public UserValue user(String name) {
    return user.getOrDefault(name.toLowerCase(Locale.ROOT), UserValue.NULL);
  }

  /** The text of a user variable, or empty if unset or NULL. */
  public Optional<String> userText(String name) {
    return Optional.ofNullable(user(name).text());
  }

  /** Sets a user variable; false (and nothing changes) past the limits. */
  public boolean setUser(String name, UserValue value) {
    String key = name.toLowerCase(Locale.ROOT);
    if (value.text() != null && value.text().length() > MAX_VALUE_CHARS) {
      return false;
    }
    if (!user.containsKey(key) && user.size() >= MAX_USER_VARIABLES) {
      return false;
    }
    user.put(key, value);
    return true;
  }

  /** A session's own value of a system variable; {@code value} is null for SQL NULL. */
  public record Setting(String value) {}

  /** The session's own value of a system variable, if it set one. */
  public Optional<Setting> system(String name) {
    String key = name.toLowerCase(Locale.ROOT);
    return system.containsKey(key) ? Optional.of(new Setting(system.get(key))) : Optional.empty();
  }

  /** Sets the session's own value; null for SQL NULL. */
  public void setSystem(String name, String value) {
    system.put(name.toLowerCase(Locale.ROOT), value);
  }

  /** Back to the global value ({@code SET x = DEFAULT}). */
  public void resetSystem(String name) {
    system.remove(name.toLowerCase(Locale.ROOT));
  }

  public String database() {
    return database;
  }

  public void database(String name) {
    this.database = name;
  }

  /**
   * Opens a transaction (BEGIN, START TRANSACTION, COMMIT AND CHAIN); one already open is committed
   * first.
   */
  public void beginTransaction(boolean readOnly) {
    inTransaction = true;
    readOnlyTransaction = readOnly;
  }

  /** COMMIT, ROLLBACK, or an implicit commit. */
  public void endTransaction() {
    inTransaction = false;
    readOnlyTransaction = false;
  }

  public boolean inTransaction() {
    return inTransaction;
  }

  /**
   * Whether {@code autocommit} is on for this session (its own value, else on, the servers'
   * default).
   */
  public boolean autocommit() {
    return system("autocommit").map(s -> !"0".equals(s.value())).orElse(true);
  }

  /**
   * The server status flags of an answer to this session: AUTOCOMMIT, IN_TRANS, IN_TRANS_READONLY.
   */
  public int statusFlags() {
    int flags = autocommit() ? OkPacket.SERVER_STATUS_AUTOCOMMIT : 0;
    if (inTransaction) {
      flags |= OkPacket.SERVER_STATUS_IN_TRANS;
      if (readOnlyTransaction) {
        flags |= OkPacket.SERVER_STATUS_IN_TRANS_READONLY;
      }
    }
    return flags;
  }

  /** Counts one statement of a kind ({@code Com_select}, {@code Questions}) for this session. */
  public void count(String counter) {
    counters.merge(counter, 1L, Long::sum);
  }

  /** How many statements of a kind this session ran. */
  public long counted(String counter) {
    return counters.getOrDefault(counter, 0L);
  }

  /** {@code COMMIT ... RELEASE}: the connection closes once the answer is sent. */
  public void requestClose() {
    closeRequested = true;
  }

  public boolean closeRequested() {
    return closeRequested;
  }

  public Traffic traffic() {
    return traffic;
  }

  /** Where {@code SHOW SESSION STATUS} reads this connection's byte counts. */
  public void traffic(Traffic t) {
    this.traffic = t == null ? Traffic.NONE : t;
  }

  /**
   * COM_RESET_CONNECTION: forget everything but the counters (an open transaction is rolled back).
   */
  public void reset() {
    user.clear();
    system.clear();
    database = null;
    endTransaction();
  }
}
