package org.binlogrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The commands that change something, against {@link StubRelay}: method, path, body sent; output;
 * refusals.
 */
class WriteCommandsTest {
  private StubRelay stub;

  @BeforeEach
  void start() throws Exception {
    stub = new StubRelay();
  }

  @AfterEach
  void stop() {
    stub.close();
  }

  private static JsonNode json(String text) throws Exception {
    return AdminClient.JSON.readTree(text);
  }

  @Test
  void purgeTo() throws Exception {
    stub.answer(
        "POST",
        "/api/v1/binlogs/purge",
        "{\"removed\":[\"binlog.000038\",\"binlog.000039\"],\"kept\":[]}");
    Run.Result r = Run.against(stub, "purge", "--to", "binlog.000040");
    assertThat(r.code()).as(r.toString()).isZero();
    StubRelay.Request request = stub.only();
    assertThat(request.method()).isEqualTo("POST");
    assertThat(request.path()).isEqualTo("/api/v1/binlogs/purge");
    assertThat(request.contentType()).isEqualTo("application/json");
    assertThat(json(request.body())).isEqualTo(json("{\"to\":\"binlog.000040\"}"));
    assertThat(r.out()).isEqualTo("Removed 2 files: binlog.000038, binlog.000039\n");
  }

  @Test
  void purgeBeforeAnAgeKeepsWhatReplicasRead() throws Exception {
    stub.answer("POST", "/api/v1/binlogs/purge", "{\"removed\":[],\"kept\":[\"binlog.000041\"]}");
    Run.Result r = Run.against(stub, "purge", "--before", "7d");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(json(stub.only().body())).isEqualTo(json("{\"before\":\"2026-11-13T10:00:00Z\"}"));
    assertThat(r.out())
        .isEqualTo(
            """
        Removed nothing.
        Kept 1 file still read by replicas: binlog.000041 (--force removes them)
        """);
  }

  @Test
  void purgeBeforeTimesAndForce() throws Exception {
    stub.answer("POST", "/api/v1/binlogs/purge", "{\"removed\":[\"binlog.000041\"],\"kept\":[]}");
    assertThat(Run.against(stub, "purge", "--before", "2026-11-20 00:00:00", "--force").code())
        .isZero();
    assertThat(Run.against(stub, "purge", "--before", "2026-11-19").code()).isZero();
    assertThat(Run.against(stub, "purge", "--before", "2026-11-19T12:30:00+02:00").code()).isZero();
    assertThat(stub.requests())
        .extracting(rq -> json(rq.body()))
        .containsExactly(
            json("{\"before\":\"2026-11-20T00:00:00Z\",\"force\":true}"),
            json("{\"before\":\"2026-11-19T00:00:00Z\"}"),
            json("{\"before\":\"2026-11-19T10:30:00Z\"}"));
  }

  @Test
  void purgeUsageErrorsSendNothing() {
    for (String[] args :
        new String[][] {
          {"purge"},
          {"purge", "--to", "a", "--before", "1d"},
          {"purge", "--before", "last tuesday"},
          {"purge", "--to", "../etc/passwd"}
        }) {
      Run.Result r = Run.against(stub, args);
      assertThat(r.code()).as(String.join(" ", args) + "\n" + r).isEqualTo(Relayctl.USAGE);
      assertThat(r.err()).startsWith("relayctl: ").endsWith("(see 'relayctl purge --help')\n");
      assertThat(r.err().lines()).hasSize(1);
    }
    assertThat(stub.requests()).isEmpty();
  }

  @Test
  void rotate() {
    stub.answer("POST", "/api/v1/binlogs/rotate", "{\"rotatedTo\":\"binlog.000043\"}");
    Run.Result r = Run.against(stub, "rotate");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(stub.only())
        .isEqualTo(new StubRelay.Request("POST", "/api/v1/binlogs/rotate", null, null, ""));
    assertThat(r.out()).isEqualTo("Rotated: the relay now stores binlog.000043.\n");
  }

  @Test
  void rotateRefusedPrintsTheRelaysReason() {
    stub.answer(
        "POST",
        "/api/v1/binlogs/rotate",
        409,
        "{\"error\":\"FLUSH BINARY LOGS failed on the primary: "
            + "Access denied; you need (at least one of) the RELOAD privilege(s) for this operation\",\"code\":\"conflict\"}");
    Run.Result r = Run.against(stub, "rotate");
    assertThat(r.code()).isEqualTo(Relayctl.RELAY_ERROR);
    assertThat(r.err())
        .isEqualTo(
            "relayctl: FLUSH BINARY LOGS failed on the primary: Access denied; you need "
                + "(at least one of) the RELOAD privilege(s) for this operation\n");
  }

  @Test
  void sourceStopAndStart() {
    stub.answer(
            "POST",
            "/api/v1/upstream/stop",
            Contract.json("upstream").replace("STREAMING", "STOPPED"))
        .answer(
            "POST",
            "/api/v1/upstream/start",
            Contract.json("upstream").replace("STREAMING", "CONNECTING"));
    Run.Result stop = Run.against(stub, "source", "stop");
    Run.Result start = Run.against(stub, "source", "start");
    assertThat(stop.code()).as(stop.toString()).isZero();
    assertThat(start.code()).as(start.toString()).isZero();
    assertThat(stub.requests())
        .containsExactly(
            new StubRelay.Request("POST", "/api/v1/upstream/stop", null, null, ""),
            new StubRelay.Request("POST", "/api/v1/upstream/start", null, null, ""));
    assertThat(stop.out()).isEqualTo("upstream STOPPED, source db1.example:3306\n");
    assertThat(start.out()).isEqualTo("upstream CONNECTING, source db1.example:3306\n");
  }

  @Test
  void sourceChangeSendsThePasswordFromItsFileAndNeverPrintsIt(@TempDir Path dir) throws Exception {
    Path passwordFile = Files.writeString(dir.resolve("pw"), "s3cr3t-Pa55\r\nignored\n");
    stub.answer(
        "POST",
        "/api/v1/upstream/change",
        Contract.json("upstream")
            .replace("db1.example", "db2.example")
            .replace("STREAMING", "CONNECTING"));
    Run.Result r =
        Run.against(
            stub,
            "source",
            "change",
            "--host",
            "db2.example",
            "--port",
            "3307",
            "--user",
            "repl2",
            "--password-file",
            passwordFile.toString(),
            "--json");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(json(stub.only().body()))
        .isEqualTo(
            json(
                "{\"host\":\"db2.example\",\"port\":3307,\"user\":\"repl2\",\"password\":\"s3cr3t-Pa55\"}"));
    assertThat(json(r.out()).get("source").asText()).isEqualTo("db2.example:3306");
    assertThat(r.out() + r.err()).doesNotContain("s3cr3t");
  }

  @Test
  void sourceChangeOmitsWhatIsNotGiven() throws Exception {
    stub.answer("POST", "/api/v1/upstream/change", Contract.json("upstream"));
    Run.Result r = Run.against(stub, "source", "change", "--host", "db2.example");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(json(stub.only().body())).isEqualTo(json("{\"host\":\"db2.example\"}"));
  }

  @Test
  void sourceChangeRefusedByTheRelay() {
    stub.answer(
        "POST",
        "/api/v1/upstream/change",
        409,
        "{\"error\":\"db2.example:3306 lacks transactions the relay "
            + "stored: 3e11fa47-71ca-11e1-9e33-c80aa9429562:1200-1207\",\"code\":\"conflict\"}");
    Run.Result r = Run.against(stub, "source", "change", "--host", "db2.example", "--port", "3306");
    assertThat(r.code()).isEqualTo(Relayctl.RELAY_ERROR);
    assertThat(r.err())
        .isEqualTo(
            "relayctl: db2.example:3306 lacks transactions the relay stored: "
                + "3e11fa47-71ca-11e1-9e33-c80aa9429562:1200-1207\n");
  }

  @Test
  void sourceChangeUsageErrors(@TempDir Path dir) {
    assertThat(Run.against(stub, "source", "change").code()).isEqualTo(Relayctl.USAGE);
    assertThat(Run.against(stub, "source", "change", "--host", "h", "--port", "70000").code())
        .isEqualTo(Relayctl.USAGE);
    assertThat(Run.against(stub, "source", "change", "--host", "h", "--port", "x").code())
        .isEqualTo(Relayctl.USAGE);
    Run.Result missing =
        Run.against(
            stub,
            "source",
            "change",
            "--host",
            "h",
            "--password-file",
            dir.resolve("absent").toString());
    assertThat(missing.code()).isEqualTo(Relayctl.USAGE);
    assertThat(missing.err())
        .isEqualTo("relayctl: --password-file " + dir.resolve("absent") + ": no such file\n");
    assertThat(stub.requests()).isEmpty();
  }

  @Test
  void replicaPauseResumeKick() {
    stub.answer(
            "POST",
            "/api/v1/replicas/3/pause",
            Contract.json("replica").replace("\"SENDING\"", "\"PAUSED\""))
        .answer("POST", "/api/v1/replicas/3/resume", Contract.json("replica"))
        .answer("POST", "/api/v1/replicas/3/kick", "{\"kicked\":\"3\"}");
    Run.Result pause = Run.against(stub, "replica", "pause", "3");
    Run.Result resume = Run.against(stub, "replica", "resume", "3");
    Run.Result kick = Run.against(stub, "replica", "kick", "3");
    assertThat(stub.requests())
        .extracting(StubRelay.Request::method, StubRelay.Request::path)
        .containsExactly(
            Tuple.tuple("POST", "/api/v1/replicas/3/pause"),
            Tuple.tuple("POST", "/api/v1/replicas/3/resume"),
            Tuple.tuple("POST", "/api/v1/replicas/3/kick"));
    assertThat(pause.out()).isEqualTo("replica 3 (server_id 101, 10.0.0.7) is PAUSED\n");
    assertThat(resume.out()).isEqualTo("replica 3 (server_id 101, 10.0.0.7) is SENDING\n");
    assertThat(kick.out()).isEqualTo("Disconnected replica 3.\n");
    assertThat(pause.code() + resume.code() + kick.code()).isZero();
  }

  @Test
  void replicaUsageErrors() {
    for (String[] args :
        new String[][] {
          {"replica"},
          {"replica", "pause"},
          {"replica", "pause", "3/../../x"},
          {"replica", "stop", "3"},
          {"replica", "kick", "3", "4"}
        }) {
      Run.Result r = Run.against(stub, args);
      assertThat(r.code()).as(String.join(" ", args) + "\n" + r).isEqualTo(Relayctl.USAGE);
      assertThat(r.err()).startsWith("relayctl: ");
      assertThat(r.err().lines()).hasSize(1);
    }
    assertThat(stub.requests()).isEmpty();
  }

  @Test
  void replicaUnknownToTheRelay() {
    stub.answer(
        "POST",
        "/api/v1/replicas/7/kick",
        404,
        "{\"error\":\"replica 7 is not connected\",\"code\":\"not_found\"}");
    Run.Result r = Run.against(stub, "replica", "kick", "7");
    assertThat(r.code()).isEqualTo(Relayctl.RELAY_ERROR);
    assertThat(r.err()).isEqualTo("relayctl: replica 7 is not connected\n");
  }
}
