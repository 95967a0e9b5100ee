package org.binlogrelay.e2e.downstream;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.binlogrelay.e2e.servers.ServerFlavor;
import org.binlogrelay.server.downstream.Command;
import org.binlogrelay.server.downstream.ReplicaRegistration;
import org.binlogrelay.server.downstream.sql.BinlogListing;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Replays every captured transcript ({@code src/test/resources/transcripts}, see {@link
 * TranscriptCaptureIT}) against the relay of the same flavour and checks that it answers each
 * statement as the real server did: OK for OK, the same error code, SQL state and message for an
 * ERR, and for a result set the same column names, types and row count, with the same values except
 * where a value describes the server itself (its id, uuid, version, clock, binlog positions), where
 * it must have the same shape (NULL, empty, a number or text). The login is replayed too (a wrong
 * password must be refused the same way), as are COM_REGISTER_SLAVE, COM_INIT_DB and COM_PING;
 * dumps are not (no stream yet).
 */
class TranscriptReplayIT {

  /** Statements whose values describe the server, not the protocol: compared by shape only. */
  private static final List<String> SERVER_SPECIFIC =
      List.of(
          "server_id",
          "server_uuid",
          "unix_timestamp",
          "version",
          "binary log",
          "master status",
          "binlog status",
          "master logs",
          "gtid_executed",
          "gtid_binlog_pos",
          "binlog_gtid_pos",
          "read_only");

  private static final Set<String> REPLAYED =
      Set.of("COM_QUERY", "COM_REGISTER_SLAVE", "COM_INIT_DB", "COM_PING");
  private static final Set<String> INTEGER_TYPES =
      Set.of("TINY", "SHORT", "LONG", "INT24", "LONGLONG");

  static Stream<Path> transcripts() throws IOException {
    Path dir =
        Path.of(System.getProperty("binlogrelay.repo", "."), "src/test/resources/transcripts");
    List<Path> files = new ArrayList<>();
    try (Stream<Path> list = Files.list(dir)) {
      list.filter(f -> f.toString().endsWith(".txt")).sorted().forEach(files::add);
    }
    assertThat(files).as("transcripts in " + dir).hasSizeGreaterThanOrEqualTo(10);
    return files.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("transcripts")
  void relayAnswersAsTheRealServerDid(Path file) {
    Transcript real = Transcript.read(file);
    ServerFlavor flavor =
        file.getFileName().toString().contains("mariadb")
            ? ServerFlavor.MARIADB
            : ServerFlavor.MYSQL;
    Transcript.Exchange login = real.exchangesOf("HANDSHAKE_RESPONSE").get(0);
    String user = field(login.request(), "user");
    boolean refused =
        real.exchanges().stream()
            .filter(e -> e.kind().equals("HANDSHAKE_RESPONSE") || e.kind().equals("AUTH"))
            .anyMatch(e -> e.response().stream().anyMatch(l -> l.startsWith("ERR 1045")));

    List<Transcript.Exchange> expected = new ArrayList<>();
    Transcript relayed;
    try (ReplicaServerUnderTest relay = ReplicaServerUnderTest.start(flavor, listing(flavor));
        ReplayClient client = new ReplayClient(relay.port())) {
      boolean loggedIn = client.login(user, refused ? "wrong-password" : user + "-pass");
      assertThat(loggedIn).as("login as " + user).isEqualTo(!refused);
      if (loggedIn) {
        for (Transcript.Exchange e : real.exchanges()) {
          if (REPLAYED.contains(e.kind())) {
            expected.add(e);
            client.command(payload(e));
          }
        }
      }
      relayed = client.transcript(file.getFileName().toString());
    }
    if (refused) {
      String realError = lastResponse(real, "ERR 1045");
      String relayError = lastResponse(relayed, "ERR 1045");
      assertThat(relayError).isEqualTo(realError);
      return;
    }
    List<Transcript.Exchange> answered =
        relayed.exchanges().stream().filter(e -> REPLAYED.contains(e.kind())).toList();
    assertThat(answered).hasSameSizeAs(expected);
    for (int i = 0; i < expected.size(); i++) {
      compare(expected.get(i), answered.get(i));
    }
  }

  private static void compare(Transcript.Exchange real, Transcript.Exchange relay) {
    String what = real.request();
    assertThat(relay.request()).as("replayed request").isEqualTo(real.request());
    List<String> expected = real.response();
    List<String> actual = relay.response();
    assertThat(actual).as(what + "\nrelay answered:\n" + String.join("\n", actual)).isNotEmpty();
    String kind = word(expected.get(0));
    assertThat(word(actual.get(0))).as(what + ": kind of answer; relay: " + actual).isEqualTo(kind);
    if (kind.equals("ERR")) {
      assertThat(actual.get(0)).as(what).isEqualTo(expected.get(0));
      return;
    }
    if (!kind.equals("RESULT")) {
      return;
    }
    List<String[]> realColumns = columns(expected.get(0));
    List<String[]> relayColumns = columns(actual.get(0));
    assertThat(relayColumns).as(what + ": columns").hasSameSizeAs(realColumns);
    for (int c = 0; c < realColumns.size(); c++) {
      String[] r = realColumns.get(c);
      String[] o = relayColumns.get(c);
      assertThat(o[0]).as(what + ": column name").isEqualTo(r[0]);
      assertThat(typeFamily(o[1])).as(what + ": type of " + r[0]).isEqualTo(typeFamily(r[1]));
      if (INTEGER_TYPES.contains(r[1])) {
        assertThat(unsigned(o[4])).as(what + ": signedness of " + r[0]).isEqualTo(unsigned(r[4]));
      }
    }
    List<String> realRows = expected.stream().filter(l -> l.startsWith("ROW ")).toList();
    List<String> relayRows = actual.stream().filter(l -> l.startsWith("ROW ")).toList();
    assertThat(relayRows).as(what + ": rows").hasSameSizeAs(realRows);
    boolean serverSpecific =
        SERVER_SPECIFIC.stream().anyMatch(what.toLowerCase(Locale.ROOT)::contains);
    for (int r = 0; r < realRows.size(); r++) {
      List<String> realValues = values(realRows.get(r), realColumns.size());
      List<String> relayValues = values(relayRows.get(r), realColumns.size());
      if (serverSpecific) {
        assertThat(relayValues.stream().map(TranscriptReplayIT::shape).toList())
            .as(what + ": value shapes")
            .isEqualTo(realValues.stream().map(TranscriptReplayIT::shape).toList());
      } else {
        assertThat(relayValues).as(what + ": values").isEqualTo(realValues);
      }
    }
  }

  private static BinlogListing listing(ServerFlavor flavor) {
    String gtids =
        flavor == ServerFlavor.MYSQL ? "4e6c6179-0000-4000-8000-000000004000:1-4" : "0-4000-4";
    return new BinlogListing() {
      @Override
      public List<BinlogFile> files() {
        return List.of(new BinlogFile("binlog.000001", 1145));
      }

      @Override
      public Optional<Position> current() {
        return Optional.of(new Position("binlog.000001", 1145));
      }

      @Override
      public String executedGtids() {
        return gtids;
      }

      @Override
      public String purgedGtids() {
        return "";
      }

      @Override
      public String binlogState() {
        return gtids;
      }

      @Override
      public Optional<String> gtidPositionAt(String file, long offset) {
        return Optional.of("");
      }
    };
  }

  /** The command packet of a transcript request line. */
  private static byte[] payload(Transcript.Exchange e) {
    switch (e.kind()) {
      case "COM_QUERY":
      case "COM_INIT_DB":
        {
          Command command = Command.valueOf(e.kind());
          byte[] text = Transcript.unescape(e.argument()).getBytes(StandardCharsets.UTF_8);
          byte[] out = new byte[text.length + 1];
          out[0] = (byte) command.code();
          System.arraycopy(text, 0, out, 1, text.length);
          return out;
        }
      case "COM_PING":
        return new byte[] {(byte) Command.COM_PING.code()};
      case "COM_REGISTER_SLAVE":
        return new ReplicaRegistration(
                Long.parseLong(field(e.request(), "server_id")),
                "",
                "",
                false,
                Integer.parseInt(field(e.request(), "port")),
                0,
                0)
            .encode();
      default:
        throw new IllegalArgumentException("not replayed: " + e.request());
    }
  }

  private static String field(String line, String name) {
    for (String part : line.split(" ")) {
      if (part.startsWith(name + "=")) {
        return part.substring(name.length() + 1);
      }
    }
    throw new IllegalArgumentException("no " + name + "= in " + line);
  }

  private static String lastResponse(Transcript t, String prefix) {
    return t.exchanges().stream()
        .flatMap(e -> e.response().stream())
        .filter(l -> l.startsWith(prefix))
        .reduce((a, b) -> b)
        .orElse("(none)");
  }

  private static String word(String line) {
    int space = line.indexOf(' ');
    return space < 0 ? line : line.substring(0, space);
  }

  /** {name, TYPE, charset, length, flags, decimals} per column of a RESULT line. */
  private static List<String[]> columns(String resultLine) {
    List<String[]> out = new ArrayList<>();
    for (String column : resultLine.substring("RESULT ".length()).split("\t")) {
      String[] parts = column.split(":");
      String[] fields = new String[6];
      int n = parts.length;
      fields[0] = Transcript.unescape(String.join(":", Arrays.copyOfRange(parts, 0, n - 5)));
      System.arraycopy(parts, n - 5, fields, 1, 5);
      out.add(fields);
    }
    return out;
  }

  private static String typeFamily(String type) {
    return INTEGER_TYPES.contains(type) ? "INTEGER" : type.endsWith("BLOB") ? "BLOB" : type;
  }

  private static boolean unsigned(String flags) {
    return (Integer.parseInt(flags.substring(2), 16) & 0x20) != 0;
  }

  private static List<String> values(String rowLine, int columns) {
    String body = rowLine.substring("ROW ".length());
    List<String> values = new ArrayList<>();
    for (String v : body.split("\t", -1)) {
      values.add(Transcript.unescape(v));
    }
    assertThat(values).as("values of " + rowLine).hasSize(columns);
    return values;
  }

  private static String shape(String value) {
    if (value == null) {
      return "NULL";
    }
    if (value.isEmpty()) {
      return "empty";
    }
    return value.matches("-?[0-9]+") ? "number" : "text";
  }
}
