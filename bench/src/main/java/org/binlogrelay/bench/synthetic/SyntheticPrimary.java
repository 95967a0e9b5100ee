package org.binlogrelay.bench.synthetic;

import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.binlogrelay.protocol.auth.NativePasswordHash;
import org.binlogrelay.protocol.auth.Scrambles;
import org.binlogrelay.protocol.bytes.ByteWriter;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.protocol.handshake.AuthSwitchRequest;
import org.binlogrelay.protocol.handshake.CapabilityFlags;
import org.binlogrelay.protocol.handshake.HandshakeLimits;
import org.binlogrelay.protocol.handshake.HandshakeResponse41;
import org.binlogrelay.protocol.handshake.HandshakeV10;
import org.binlogrelay.protocol.packet.BlockingPacketReader;
import org.binlogrelay.protocol.packet.EofPacket;
import org.binlogrelay.protocol.packet.ErrPacket;
import org.binlogrelay.protocol.packet.OkPacket;
import org.binlogrelay.protocol.query.ColumnDefinition;
import org.binlogrelay.protocol.query.ColumnType;
import org.binlogrelay.protocol.replication.BinlogDumpCommand;
import org.binlogrelay.protocol.replication.BinlogDumpGtidCommand;

/**
 * A synthetic MySQL 9.7 primary on 127.0.0.1 for benchmarks: it accepts a replica's login ({@code
 * mysql_native_password}, one account, switching a client that starts with another plugin), answers
 * the statements a replica (the relay's upstream) sends at connect as MySQL 9.7 would ({@code
 * SELECT @@global.x, ...}, {@code SET}, {@code SHOW BINARY LOGS}, {@code SHOW BINARY LOG STATUS},
 * {@code SHOW GLOBAL VARIABLES}; an unknown variable gets error 1193 like MySQL's, which is how the
 * relay learns that there is no semi-sync plugin), and serves one dump (COM_BINLOG_DUMP or
 * COM_BINLOG_DUMP_GTID) from the head of its {@link SyntheticBinlog}: nothing is stored, so a dump
 * can start only where the binlog stands (or at the start of the first file before anything was
 * sent); any other start gets error 1236. Transactions are sent when {@link #send} is called (the
 * pacing is the caller's); between them the dump gets a HEARTBEAT every heartbeat period the
 * replica asked for ({@code @master_heartbeat_period}). A new dump replaces the previous one, as a
 * replica reconnecting with the same UUID does on MySQL.
 *
 * <p>Thread-safety: one thread per connection; {@link #send} and the heartbeat thread write the
 * dump under the primary's lock; the rest may be called from any thread.
 */
public final class SyntheticPrimary implements Closeable {
  /** ER_UNKNOWN_SYSTEM_VARIABLE. */
  static final int UNKNOWN_SYSTEM_VARIABLE = 1193;

  /** ER_MASTER_FATAL_ERROR_READING_BINLOG. */
  static final int FATAL_READING_BINLOG = 1236;

  private static final int CAPABILITIES =
      CapabilityFlags.CLIENT_LONG_PASSWORD
          | CapabilityFlags.CLIENT_FOUND_ROWS
          | CapabilityFlags.CLIENT_LONG_FLAG
          | CapabilityFlags.CLIENT_CONNECT_WITH_DB
          | CapabilityFlags.CLIENT_PROTOCOL_41
          | CapabilityFlags.CLIENT_TRANSACTIONS
          | CapabilityFlags.CLIENT_SECURE_CONNECTION
          | CapabilityFlags.CLIENT_MULTI_RESULTS
          | CapabilityFlags.CLIENT_PLUGIN_AUTH
          | CapabilityFlags.CLIENT_CONNECT_ATTRS
          | CapabilityFlags.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA;

  private static final Pattern HEARTBEAT_PERIOD =
      Pattern.compile(
          "@(?:master|source)_heartbeat_period\\s*=\\s*(\\d+)", Pattern.CASE_INSENSITIVE);

  /** What to run. */
  public record Settings(
      int port,
      String user,
      String password,
      long serverId,
      UUID serverUuid,
      String basename,
      long maxBinlogSize) {}

  private final Settings settings;
  private final RecordedTransactions recording;
  private final SyntheticBinlog binlog;
  private final ServerSocket listener;
  private final Thread acceptor;
  private final Thread heartbeats;
  private final PrintStream log;
  private final SecureRandom random = new SecureRandom();
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private final List<Long> closedFileSizes = new ArrayList<>();
  private final Object lock = new Object();
  private volatile boolean closed;
  private long nextConnectionId = 1;
  // the dump, under lock
  private Dump dump;
  private long dumps;
  private long lastWriteNanos = System.nanoTime();
  private byte[] batch = new byte[1 << 16];
  private int batchLength;

  private SyntheticPrimary(Settings settings, RecordedTransactions recording, PrintStream log)
      throws IOException {
    this.settings = settings;
    this.recording = recording;
    this.log = log;
    this.binlog =
        new SyntheticBinlog(
            recording,
            settings.serverUuid(),
            settings.serverId(),
            settings.basename(),
            settings.maxBinlogSize());
    this.listener = new ServerSocket();
    listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), settings.port()), 50);
    this.acceptor = new Thread(this::accept, "synthetic-primary-accept");
    acceptor.setDaemon(true);
    this.heartbeats = new Thread(this::heartbeats, "synthetic-primary-heartbeat");
    heartbeats.setDaemon(true);
  }

  /** Listens on 127.0.0.1 ({@code settings.port()}, 0 for a free port) and accepts. */
  public static SyntheticPrimary start(
      Settings settings, RecordedTransactions recording, PrintStream log) throws IOException {
    SyntheticPrimary p = new SyntheticPrimary(settings, recording, log);
    p.acceptor.start();
    p.heartbeats.start();
    return p;
  }

  public int port() {
    return listener.getLocalPort();
  }

  /** Dump commands accepted so far. */
  public long dumps() {
    synchronized (lock) {
      return dumps;
    }
  }

  /** True while a dump is being served. */
  public boolean dumping() {
    synchronized (lock) {
      return dump != null;
    }
  }

  /** GTIDs written so far ({@code uuid:1-N}). */
  public String executedGtids() {
    synchronized (lock) {
      return binlog.executedGtids();
    }
  }

  public UUID serverUuid() {
    return settings.serverUuid();
  }

  /**
   * Generates the next {@code count} transactions with {@code commitMicros} as their commit time
   * and writes them to the dump in one write (or drops them if there is no dump: a replica that
   * comes back cannot get them, and its dump fails with 1236).
   *
   * @return the GNO of the first
   * @throws IOException if the write to the dump failed (the dump is then closed)
   */
  public long send(int count, long commitMicros) throws IOException {
    synchronized (lock) {
      batchLength = 0;
      long first = -1;
      for (int i = 0; i < count; i++) {
        long gno = binlog.next(commitMicros, sink);
        if (first < 0) {
          first = gno;
        }
      }
      if (dump != null) {
        writeBatch();
      }
      return first;
    }
  }

  private final SyntheticBinlog.EventSink sink =
      new SyntheticBinlog.EventSink() {
        @Override
        public void transaction(byte[] events, int[] starts, long gno) {
          for (int i = 0; i < starts.length; i++) {
            int end = i + 1 < starts.length ? starts[i + 1] : events.length;
            addPacket(events, starts[i], end - starts[i]);
          }
        }

        @Override
        public void event(byte[] event) {
          if (event[4] == 4) { // the ROTATE ending a file: note the file's size
            closedFileSizes.add(binlog.position());
          }
          addPacket(event, 0, event.length);
        }
      };

  /** Appends one event as a packet (sequence id filled in at write time) to the batch. */
  private void addPacket(byte[] event, int offset, int length) {
    int payload = length + 1;
    if (payload >= 0xFFFFFF) {
      throw new IllegalStateException("an event of " + length + " bytes does not fit one packet");
    }
    int need = batchLength + 4 + payload;
    if (need > batch.length) {
      batch = Arrays.copyOf(batch, Math.max(need, batch.length * 2));
    }
    batch[batchLength] = (byte) payload;
    batch[batchLength + 1] = (byte) (payload >>> 8);
    batch[batchLength + 2] = (byte) (payload >>> 16);
    batch[batchLength + 4] = 0;
    System.arraycopy(event, offset, batch, batchLength + 5, length);
    batchLength = need;
  }

  /** Writes the batch to the dump (under lock), numbering its packets. */
  private void writeBatch() throws IOException {
    Dump d = dump;
    for (int at = 0; at < batchLength; ) {
      int payload = (batch[at] & 0xff) | (batch[at + 1] & 0xff) << 8 | (batch[at + 2] & 0xff) << 16;
      batch[at + 3] = (byte) d.sequence++;
      at += 4 + payload;
    }
    try {
      d.out.write(batch, 0, batchLength);
    } catch (IOException e) {
      endDump(d);
      throw new IOException("the dump to " + d.peer + " failed: " + e.getMessage(), e);
    }
    lastWriteNanos = System.nanoTime();
    batchLength = 0;
  }

  private void endDump(Dump d) {
    if (dump == d) {
      dump = null;
    }
    close(d.socket);
  }

  private void heartbeats() {
    while (!closed) {
      try {
        long period;
        synchronized (lock) {
          Dump d = dump;
          period = d == null || d.heartbeatNanos <= 0 ? 100_000_000L : d.heartbeatNanos;
          if (d != null && d.heartbeatNanos > 0 && System.nanoTime() - lastWriteNanos >= period) {
            batchLength = 0;
            byte[] hb = binlog.heartbeat();
            addPacket(hb, 0, hb.length);
            try {
              writeBatch();
            } catch (IOException e) {
              log.println("synthetic primary: " + e.getMessage());
            }
          }
        }
        TimeUnit.NANOSECONDS.sleep(Math.min(period / 4, 100_000_000L));
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private void accept() {
    while (!closed) {
      Socket socket;
      try {
        socket = listener.accept();
      } catch (IOException e) {
        if (!closed) {
          log.println("synthetic primary: accept failed: " + e.getMessage());
        }
        return;
      }
      sockets.add(socket);
      Thread t = new Thread(() -> serve(socket), "synthetic-primary-" + socket.getPort());
      t.setDaemon(true);
      t.start();
    }
  }

  /** One connection: login, then commands until it quits, fails or becomes the dump. */
  private void serve(Socket socket) {
    String peer = socket.getRemoteSocketAddress().toString();
    try {
      socket.setTcpNoDelay(true);
      OutputStream out = socket.getOutputStream();
      BlockingPacketReader in =
          new BlockingPacketReader(socket.getInputStream(), 1 << 14, 1 << 24, "the replica", "");
      if (!login(in, out)) {
        return;
      }
      Session session = new Session();
      while (!closed) {
        in.expectSequence(0);
        byte[] command;
        try {
          command = in.read();
        } catch (java.io.EOFException e) {
          return;
        }
        if (command.length == 0) {
          write(out, 1, new ErrPacket(1047, "08S01", "Unknown command").encode());
          continue;
        }
        int code = command[0] & 0xff;
        switch (code) {
          case 0x01: // COM_QUIT
            return;
          case 0x0e: // COM_PING
          case 0x15: // COM_REGISTER_SLAVE
          case 0x02: // COM_INIT_DB
            write(out, 1, OkPacket.ok().encode());
            break;
          case 0x03:
            query(out, session, new String(command, 1, command.length - 1, StandardCharsets.UTF_8));
            break;
          case BinlogDumpCommand.CODE:
          case BinlogDumpGtidCommand.CODE:
            if (startDump(socket, out, session, command, peer)) {
              // the dump owns the socket's output now; read until the replica goes
              // (semi-sync acknowledgements are ignored)
              while (!closed) {
                in.expectSequence(0);
                in.read();
              }
            }
            return;
          default:
            write(out, 1, new ErrPacket(1047, "08S01", "Unknown command").encode());
        }
      }
    } catch (IOException | RuntimeException e) {
      if (!closed && !(e instanceof java.io.EOFException)) {
        log.println("synthetic primary: connection " + peer + " ended: " + e.getMessage());
      }
    } finally {
      synchronized (lock) {
        if (dump != null && dump.socket == socket) {
          dump = null;
        }
      }
      close(socket);
      sockets.remove(socket);
    }
  }

  private boolean login(BlockingPacketReader in, OutputStream out) throws IOException {
    byte[] scramble = Scrambles.generate(random);
    long id;
    synchronized (lock) {
      id = nextConnectionId++;
    }
    HandshakeV10 hello =
        new HandshakeV10(
            recording.serverVersion(),
            id,
            scramble,
            CAPABILITIES,
            ColumnDefinition.UTF8MB4_0900_AI_CI,
            OkPacket.SERVER_STATUS_AUTOCOMMIT,
            NativePasswordHash.PLUGIN);
    write(out, 0, hello.encode());
    in.expectSequence(1);
    HandshakeResponse41 response = HandshakeResponse41.decode(in.read(), HandshakeLimits.DEFAULT);
    int sequence = 2;
    byte[] auth = response.authResponse();
    if (!response.authPluginName().isEmpty()
        && !response.authPluginName().equals(NativePasswordHash.PLUGIN)) {
      write(
          out,
          sequence,
          new AuthSwitchRequest(NativePasswordHash.PLUGIN, withNul(scramble)).encode());
      in.expectSequence(sequence + 1);
      auth = in.read();
      sequence += 2;
    }
    boolean userOk = response.user().equals(settings.user());
    boolean passwordOk =
        settings.password().isEmpty()
            ? auth.length == 0
            : auth.length > 0
                && NativePasswordHash.of(settings.password()).verifyScramble(scramble, auth);
    if (!userOk || !passwordOk) {
      write(
          out,
          sequence,
          new ErrPacket(
                  1045,
                  "28000",
                  "Access denied for user '"
                      + response.user()
                      + "'@'127.0.0.1' (using password: "
                      + (auth.length > 0 ? "YES" : "NO")
                      + ")")
              .encode());
      return false;
    }
    write(out, sequence, OkPacket.ok().encode());
    return true;
  }

  private static byte[] withNul(byte[] scramble) {
    return Arrays.copyOf(scramble, scramble.length + 1);
  }

  /** The session's state: what a dump needs from the SETs before it. */
  private static final class Session {
    long heartbeatNanos;
  }

  private void query(OutputStream out, Session session, String sql) throws IOException {
    String q = sql.strip();
    while (q.endsWith(";")) {
      q = q.substring(0, q.length() - 1).strip();
    }
    String upper = q.toUpperCase(Locale.ROOT).replaceAll("\\s+", " ");
    if (upper.startsWith("SET ")) {
      Matcher m = HEARTBEAT_PERIOD.matcher(q);
      if (m.find()) {
        session.heartbeatNanos = Long.parseLong(m.group(1));
      }
      write(out, 1, OkPacket.ok().encode());
      return;
    }
    if (upper.startsWith("SELECT ")) {
      List<String> names = new ArrayList<>();
      List<String> values = new ArrayList<>();
      for (String item : q.substring(7).split(",")) {
        String expr = item.strip();
        String name = expr.toLowerCase(Locale.ROOT);
        if (!name.startsWith("@@")) {
          unsupported(out, q);
          return;
        }
        name = name.substring(2).replaceFirst("^(global|session)\\.", "");
        String value = variables().get(name);
        if (value == null && !variables().containsKey(name)) {
          write(
              out,
              1,
              new ErrPacket(
                      UNKNOWN_SYSTEM_VARIABLE, "HY000", "Unknown system variable '" + name + "'")
                  .encode());
          return;
        }
        names.add(expr);
        values.add(value);
      }
      resultSet(out, names, List.of(values));
      return;
    }
    if (upper.equals("SHOW BINARY LOGS") || upper.equals("SHOW MASTER LOGS")) {
      List<List<String>> rows = new ArrayList<>();
      synchronized (lock) {
        for (int i = 0; i < closedFileSizes.size(); i++) {
          rows.add(List.of(binlog.fileName(i + 1), Long.toString(closedFileSizes.get(i)), "No"));
        }
        rows.add(List.of(binlog.currentFile(), Long.toString(binlog.position()), "No"));
      }
      resultSet(out, List.of("Log_name", "File_size", "Encrypted"), rows);
      return;
    }
    if (upper.equals("SHOW BINARY LOG STATUS") || upper.equals("SHOW MASTER STATUS")) {
      List<String> row;
      synchronized (lock) {
        row =
            List.of(
                binlog.currentFile(),
                Long.toString(binlog.position()),
                "",
                "",
                binlog.executedGtids());
      }
      resultSet(
          out,
          List.of("File", "Position", "Binlog_Do_DB", "Binlog_Ignore_DB", "Executed_Gtid_Set"),
          List.of(row));
      return;
    }
    if (upper.startsWith("SHOW GLOBAL VARIABLES") || upper.startsWith("SHOW VARIABLES")) {
      Matcher like = Pattern.compile("LIKE\\s+'([^']*)'", Pattern.CASE_INSENSITIVE).matcher(q);
      Pattern filter = null;
      if (like.find() && !upper.contains(" WHERE ")) {
        filter = Pattern.compile(like.group(1).replace("%", ".*").replace("_", "."));
      }
      List<List<String>> rows = new ArrayList<>();
      for (Map.Entry<String, String> v : variables().entrySet()) {
        boolean wanted =
            filter != null
                ? filter.matcher(v.getKey()).matches()
                : !upper.contains(" WHERE ")
                    || v.getKey().startsWith("binlog")
                    || v.getKey().startsWith("max_binlog")
                    || v.getKey().equals("server_uuid");
        if (wanted) {
          rows.add(List.of(v.getKey(), v.getValue() == null ? "" : v.getValue()));
        }
      }
      resultSet(out, List.of("Variable_name", "Value"), rows);
      return;
    }
    unsupported(out, q);
  }

  private void unsupported(OutputStream out, String q) throws IOException {
    log.println("synthetic primary: statement not supported: " + q);
    write(
        out,
        1,
        new ErrPacket(
                1235,
                "42000",
                "This version of MySQL doesn't yet support '" + q + "' (the synthetic primary)")
            .encode());
  }

  /** The variables a MySQL 9.7 primary has that replicas ask for, with their values now. */
  private Map<String, String> variables() {
    Map<String, String> v = new LinkedHashMap<>();
    String executed;
    synchronized (lock) {
      executed = binlog.executedGtids();
    }
    v.put("binlog_cache_size", "32768");
    v.put("binlog_checksum", "CRC32");
    v.put("binlog_encryption", "OFF");
    v.put("binlog_error_action", "ABORT_SERVER");
    v.put("binlog_expire_logs_auto_purge", "ON");
    v.put("binlog_expire_logs_seconds", "2592000");
    v.put("binlog_format", "ROW");
    v.put("binlog_gtid_simple_recovery", "ON");
    v.put("binlog_max_flush_queue_time", "0");
    v.put("binlog_order_commits", "ON");
    v.put("binlog_rotate_encryption_master_key_at_startup", "OFF");
    v.put("binlog_row_event_max_size", "8192");
    v.put("binlog_row_image", "FULL");
    v.put("binlog_row_metadata", "MINIMAL");
    v.put("binlog_row_value_options", "");
    v.put("binlog_rows_query_log_events", "OFF");
    v.put("binlog_stmt_cache_size", "32768");
    v.put("binlog_transaction_compression", "OFF");
    v.put("binlog_transaction_compression_level_zstd", "3");
    v.put("binlog_transaction_dependency_history_size", "25000");
    v.put("enforce_gtid_consistency", "ON");
    v.put("gtid_executed", executed);
    v.put("gtid_mode", "ON");
    v.put("gtid_purged", "");
    v.put("hostname", "localhost");
    v.put("log_bin", "1");
    v.put("log_bin_basename", "/var/lib/mysql/" + settings.basename());
    v.put("log_replica_updates", "1");
    v.put("max_allowed_packet", "67108864");
    v.put("max_binlog_cache_size", "18446744073709547520");
    v.put("max_binlog_size", Long.toString(settings.maxBinlogSize()));
    v.put("max_binlog_stmt_cache_size", "18446744073709547520");
    v.put("port", Integer.toString(port()));
    v.put("read_only", "0");
    v.put("server_id", Long.toString(settings.serverId()));
    v.put("server_uuid", settings.serverUuid().toString());
    v.put("sync_binlog", "1");
    v.put("system_time_zone", "UTC");
    v.put("time_zone", "SYSTEM");
    v.put("version", recording.serverVersion());
    v.put("version_comment", "MySQL Community Server - GPL (binlog-relay synthetic primary)");
    return v;
  }

  private static void resultSet(OutputStream out, List<String> columns, List<List<String>> rows)
      throws IOException {
    ByteWriter w = new ByteWriter(256);
    int seq = 1;
    packet(w, seq++, new ByteWriter(9).lenencInt(columns.size()).toByteArray());
    for (String c : columns) {
      packet(
          w,
          seq++,
          ColumnDefinition.computed(
                  c, ColumnDefinition.UTF8MB4_0900_AI_CI, 1024, ColumnType.VAR_STRING, 0, 31)
              .encode());
    }
    packet(w, seq++, new EofPacket(0, OkPacket.SERVER_STATUS_AUTOCOMMIT).encode());
    for (List<String> row : rows) {
      ByteWriter r = new ByteWriter(64);
      for (String value : row) {
        if (value == null) {
          r.u8(0xfb);
        } else {
          r.lenencString(value);
        }
      }
      packet(w, seq++, r.toByteArray());
    }
    packet(w, seq, new EofPacket(0, OkPacket.SERVER_STATUS_AUTOCOMMIT).encode());
    out.write(w.toByteArray());
    out.flush();
  }

  private static void packet(ByteWriter w, int sequence, byte[] payload) {
    w.u24(payload.length).u8(sequence & 0xff).bytes(payload);
  }

  private static void write(OutputStream out, int sequence, byte[] payload) throws IOException {
    ByteWriter w = new ByteWriter(4 + payload.length);
    packet(w, sequence, payload);
    out.write(w.toByteArray());
    out.flush();
  }

  /** One dump: its socket and the next sequence id. */
  private static final class Dump {
    final Socket socket;
    final OutputStream out;
    final String peer;
    final long heartbeatNanos;
    int sequence = 1;

    Dump(Socket socket, OutputStream out, String peer, long heartbeatNanos) {
      this.socket = socket;
      this.out = out;
      this.peer = peer;
      this.heartbeatNanos = heartbeatNanos;
    }
  }

  /** Validates the start, sends the first events; false (after an ERR) if it cannot serve it. */
  private boolean startDump(
      Socket socket, OutputStream out, Session session, byte[] command, String peer)
      throws IOException {
    synchronized (lock) {
      boolean fileStartFree = binlog.transactionsInFile() == 0;
      byte[][] first;
      String problem = null;
      if ((command[0] & 0xff) == BinlogDumpCommand.CODE) {
        BinlogDumpCommand c = BinlogDumpCommand.decode(command);
        String file = c.fileName().isEmpty() ? binlog.fileName(1) : c.fileName();
        if (file.equals(binlog.currentFile()) && c.position() == 4 && fileStartFree) {
          first = binlog.startOfCurrentFile();
        } else if (file.equals(binlog.currentFile()) && c.position() == binlog.position()) {
          first = binlog.resumeAtHead();
        } else {
          first = null;
          problem = file + ":" + c.position();
        }
      } else {
        BinlogDumpGtidCommand c = BinlogDumpGtidCommand.decode(command);
        MysqlGtidSet wanted = c.gtids() == null ? MysqlGtidSet.empty() : c.gtids();
        MysqlGtidSet have = MysqlGtidSet.parse(binlog.executedGtids());
        if (wanted.equals(have) && fileStartFree) {
          first = binlog.startOfCurrentFile();
        } else if (wanted.equals(have)) {
          first = binlog.resumeAtHead();
        } else {
          first = null;
          problem = "after GTIDs '" + wanted + "'";
        }
      }
      if (first == null) {
        write(
            out,
            1,
            new ErrPacket(
                    FATAL_READING_BINLOG,
                    "HY000",
                    "Got fatal error 1236 from source when reading data from binary log: 'the"
                        + " synthetic primary keeps no history: it serves "
                        + binlog.currentFile()
                        + ":"
                        + binlog.position()
                        + " (GTIDs '"
                        + binlog.executedGtids()
                        + "') only, not "
                        + problem
                        + "'")
                .encode());
        return false;
      }
      if (dump != null) {
        log.println(
            "synthetic primary: a new dump from " + peer + " replaces the one from " + dump.peer);
        close(dump.socket);
      }
      dump = new Dump(socket, out, peer, session.heartbeatNanos);
      dumps++;
      batchLength = 0;
      for (byte[] e : first) {
        addPacket(e, 0, e.length);
      }
      writeBatch();
      return true;
    }
  }

  private static void close(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // closing
    }
  }

  @Override
  public void close() throws IOException {
    closed = true;
    listener.close();
    heartbeats.interrupt();
    for (Socket s : sockets) {
      close(s);
    }
  }
}
