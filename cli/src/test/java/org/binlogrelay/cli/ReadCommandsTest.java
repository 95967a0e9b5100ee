package org.binlogrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The read commands against {@link StubRelay}: the request each sends, the table it prints, --json
 * as sent.
 */
class ReadCommandsTest {
  private StubRelay stub;

  @BeforeEach
  void start() throws Exception {
    stub =
        new StubRelay()
            .answer("GET", "/api/v1/status", Contract.json("status"))
            .answer("GET", "/api/v1/upstream", Contract.json("upstream"))
            .answer("GET", "/api/v1/binlogs", Contract.json("binlogs"))
            .answer("GET", "/api/v1/gtid", Contract.json("gtid"))
            .answer("GET", "/api/v1/replicas", Contract.json("replicas"))
            .answer("GET", "/api/v1/replicas/3", Contract.json("replica"))
            .answer("GET", "/api/v1/lag", Contract.json("lag"))
            .answer("GET", "/api/v1/archive", Contract.json("archive"));
  }

  @AfterEach
  void stop() {
    stub.close();
  }

  @Test
  void status() {
    Run.Result r = Run.against(stub, "status");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(stub.only())
        .isEqualTo(new StubRelay.Request("GET", "/api/v1/status", null, null, ""));
    assertThat(r.out())
        .isEqualTo(
            """
        Relay
          State:            RUNNING
          Version:          0.1.0
          Flavor:           mysql
          Server ID:        9001
          Server UUID:      4e6c6179-0000-4000-8000-000000009001
          Replica address:  127.0.0.1:3307
          Started:          2026-11-20 09:58:00 (up 2m00s)
        Upstream
          State:            STREAMING since 2026-11-20 09:58:12
          Source:           db1.example:3306
          Primary:          9.7.0, server_id 1
          TLS:              yes
          Semi-sync:        no
          Position:         binlog.000042:157
          Last GTID:        3e11fa47-71ca-11e1-9e33-c80aa9429562:1207
          Behind:           0.4 s
          Received:         1.2 GiB, 5123456 events, 1207 transactions
          Last event:       2026-11-20 09:59:59
          Connections:      1
        Store
          Condition:        OPEN
          Data dir:         /var/lib/binlog-relay
          Files:            3 (1.2 GiB)
          Head:             binlog.000042:157
          Oldest event:     2026-11-13 00:00:01
          Executed GTIDs:   3e11fa47-71ca-11e1-9e33-c80aa9429562:1-1207,
                            8a94f357-aab4-11df-86ab-c80aa9429562:1-5
          Purged GTIDs:     (empty)
        Archive
          Location:         s3://binlog-archive/relay1/
          State:            OK, uploading binlog.000041
          Pending:          1 file (205 MiB), the oldest closed 12 s ago
          Archived:         40 files (40 GiB), binlog.000001 to binlog.000040
        Replicas
          Connected:        2
        """);
    assertThat(r.err()).isEmpty();
  }

  @Test
  void statusWithoutArchiveHasNoArchiveSection() throws Exception {
    JsonNode status = AdminClient.JSON.readTree(Contract.json("status"));
    ((ObjectNode) status).putNull("archive");
    try (StubRelay noArchive = new StubRelay().answer("GET", "/api/v1/status", status.toString())) {
      Run.Result r = Run.against(noArchive, "status");
      assertThat(r.code()).isZero();
      assertThat(r.out())
          .doesNotContain("Archive")
          .contains("Purged GTIDs:     (empty)\nReplicas\n");
    }
  }

  @Test
  void statusShowsTheArchivesFailureAndAdvice() throws Exception {
    JsonNode status = AdminClient.JSON.readTree(Contract.json("status"));
    ((ObjectNode) status).set("archive", AdminClient.JSON.readTree(Contract.json("archive")));
    try (StubRelay failing = new StubRelay().answer("GET", "/api/v1/status", status.toString())) {
      Run.Result r = Run.against(failing, "status");
      assertThat(r.code()).isZero();
      assertThat(r.out())
          .contains(
              """
          Archive
            Location:         s3://binlog-archive/relay1/
            State:            RETRYING, uploading binlog.000041
            Pending:          1 file (205 MiB), the oldest closed 6m52s ago
            Archived:         40 files (40 GiB), binlog.000001 to binlog.000040
            Last error:       UNREACHABLE: binlog.000041: PUT s3://binlog-archive/relay1/binlog.000041.zst:\
           connection refused (s3.internal:9000) (at 2026-11-20 09:59:41)
            Advice:           check the archive endpoint, DNS and the network between the relay and it;\
           uploads resume by themselves
            Next attempt:     2026-11-20 10:00:05
          Replicas
          """);
    }
  }

  @Test
  void statusSaysWhyDeferredUploadsWait() throws Exception {
    JsonNode status = AdminClient.JSON.readTree(Contract.json("status"));
    ObjectNode archive = (ObjectNode) AdminClient.JSON.readTree(Contract.json("archive"));
    archive.put("state", "DEFERRED");
    archive.putNull("currentFile");
    archive.putNull("lastErrorKind");
    archive.putNull("lastError");
    archive.putNull("lastErrorAt");
    archive.putNull("nextAttemptAt");
    archive.put(
        "advice",
        "the relay is 734 s behind its primary: uploads resume within 2 s of it, or when the files"
            + " waiting hold 4294967296 bytes (--archive-defer-max-pending)");
    ((ObjectNode) status).set("archive", archive);
    try (StubRelay deferred = new StubRelay().answer("GET", "/api/v1/status", status.toString())) {
      Run.Result r = Run.against(deferred, "status");
      assertThat(r.code()).isZero();
      assertThat(r.out())
          .contains(
              "  State:            DEFERRED\n"
                  + "  Pending:          1 file (205 MiB), the oldest closed 6m52s ago\n"
                  + "  Archived:         40 files (40 GiB), binlog.000001 to binlog.000040\n"
                  + "  Waiting:          the relay is 734 s behind its primary: uploads resume"
                  + " within 2 s of it, or when the files waiting hold 4294967296 bytes"
                  + " (--archive-defer-max-pending)\n"
                  + "Replicas\n");
    }
  }

  @Test
  void archive() {
    Run.Result r = Run.against(stub, "archive");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(stub.only())
        .isEqualTo(new StubRelay.Request("GET", "/api/v1/archive", null, null, ""));
    assertThat(r.out())
        .isEqualTo(
            """
        Archive
          Location:      s3://binlog-archive/relay1/
          Objects:       zstd:3, encrypted (AES-256-GCM, key 2026-11), uploads at most 50 MiB/s
          State:         RETRYING, uploading binlog.000041
          Pending:       1 file (205 MiB), the oldest closed 6m52s ago
          Uploaded:      2 files (2.0 GiB) since the start
          Archived:      40 files (40 GiB), binlog.000001 to binlog.000040
          Cache:         1.0 GiB
          Fetched:       3 files (3.0 GiB), 0 failed
          Deleted:       0 files (archive retention)
          Last error:    UNREACHABLE: binlog.000041: PUT s3://binlog-archive/relay1/binlog.000041.zst:\
         connection refused (s3.internal:9000) (at 2026-11-20 09:59:41)
          Advice:        check the archive endpoint, DNS and the network between the relay and it;\
         uploads resume by themselves
          Next attempt:  2026-11-20 10:00:05
        """);
    assertThat(r.err()).isEmpty();
  }

  @Test
  void archiveWithoutOneIsTheRelaysError() throws Exception {
    try (StubRelay none =
        new StubRelay()
            .answer(
                "GET",
                "/api/v1/archive",
                409,
                "{\"error\":\"no archive is configured: the relay keeps its binlogs in its data"
                    + " directory only\",\"code\":\"conflict\"}")) {
      Run.Result r = Run.against(none, "archive");
      assertThat(r.code()).isEqualTo(Relayctl.RELAY_ERROR);
      assertThat(r.out()).isEmpty();
      assertThat(r.err())
          .isEqualTo(
              "relayctl: no archive is configured: the relay keeps its binlogs in its data"
                  + " directory only\n");
    }
  }

  @Test
  void statusWithoutUpstream() throws Exception {
    JsonNode status = AdminClient.JSON.readTree(Contract.json("status"));
    ((ObjectNode) status).putNull("upstream");
    try (StubRelay noUpstream =
        new StubRelay().answer("GET", "/api/v1/status", status.toString())) {
      Run.Result r = Run.against(noUpstream, "status");
      assertThat(r.code()).isZero();
      assertThat(r.out()).contains("Upstream\n  State:            none configured\nStore\n");
    }
  }

  @Test
  void upstream() {
    Run.Result r = Run.against(stub, "source");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(stub.only().path()).isEqualTo("/api/v1/upstream");
    assertThat(r.out())
        .startsWith("Upstream\n  State:        STREAMING since 2026-11-20 09:58:12\n")
        .contains("  Source:       db1.example:3306\n");
  }

  @Test
  void replicasTable() {
    Run.Result r = Run.against(stub, "replicas");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(stub.only())
        .isEqualTo(new StubRelay.Request("GET", "/api/v1/replicas", null, null, ""));
    assertThat(r.out())
        .isEqualTo(
            """
        ID  SERVER ID  HOST      STATE    POSITION              BEHIND   LAG
        3   101        10.0.0.7  SENDING  binlog.000041:203423  1.2 MiB  3.4 s
        4   102        10.0.0.8  PAUSED   binlog.000040:4       24 MiB   42 s
        """);
  }

  @Test
  void replicasWide() {
    Run.Result r = Run.against(stub, "replicas", "--wide");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out().lines().toList())
        .containsExactly(
            "ID  SERVER ID  HOST      USER  MODE      STATE    POSITION              SENT    BEHIND   LAG    "
                + "SEND RATE  CONNECTED (UTC)",
            "3   101        10.0.0.7  repl  gtid      SENDING  binlog.000041:203423  50 MiB  1.2 MiB  3.4 s  "
                + "12 MiB/s   2026-11-20 09:58:30",
            "4   102        10.0.0.8  repl  position  PAUSED   binlog.000040:4       0 B     24 MiB   42 s   "
                + "0 B/s      2026-11-20 09:59:00");
  }

  @Test
  void noReplicas() throws Exception {
    try (StubRelay empty = new StubRelay().answer("GET", "/api/v1/replicas", "[]")) {
      Run.Result r = Run.against(empty, "replicas");
      assertThat(r.code()).isZero();
      assertThat(r.out()).isEqualTo("No replicas connected.\n");
    }
  }

  @Test
  void replicaShow() {
    Run.Result r = Run.against(stub, "replicas", "show", "3");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(stub.only().path()).isEqualTo("/api/v1/replicas/3");
    assertThat(r.out())
        .isEqualTo(
            """
          ID:             3
          Server ID:      101
          Host:           10.0.0.7
          Reported as:    replica1.example:3306
          User:           repl
          UUID:           5d2e8a6c-71ca-11e1-9e33-c80aa9429562
          Mode:           gtid
          State:          SENDING
          Connected:      2026-11-20 09:58:30
          Position:       binlog.000041:203423
          Sent:           50 MiB, 120000 events, 1100 transactions
          Behind:         1.2 MiB, 3.4 s
          Send rate:      12 MiB/s
          Catch-up rate:  2.1 MiB/s
          ETA:            0:42
          Stalls:         0
        """);
  }

  @Test
  void replicaNotConnectedIsARelayError() {
    stub.answer(
        "GET",
        "/api/v1/replicas/9",
        404,
        "{\"error\":\"replica 9 is not connected\",\"code\":\"not_found\"}");
    Run.Result r = Run.against(stub, "replicas", "show", "9");
    assertThat(r.code()).isEqualTo(Relayctl.RELAY_ERROR);
    assertThat(r.out()).isEmpty();
    assertThat(r.err()).isEqualTo("relayctl: replica 9 is not connected\n");
  }

  @Test
  void binlogs() {
    Run.Result r = new Run().terminal(false, 100).on(stub, "binlogs");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(stub.only().path()).isEqualTo("/api/v1/binlogs");
    assertThat(r.out())
        .isEqualTo(
            """
        NAME           SIZE     FIRST EVENT (UTC)    LAST EVENT (UTC)     READERS  TIER
        binlog.000039  1.0 GiB  2026-11-06 00:00:02  2026-11-13 00:00:01  0        archive
        binlog.000040  1.0 GiB  2026-11-13 00:00:01  2026-11-18 12:00:00  0        local,archive
        binlog.000041  205 MiB  2026-11-18 12:00:00  2026-11-20 09:00:00  1        local
        binlog.000042  157 B    2026-11-20 09:00:00  -                    1        local

        4 files, 2.2 GiB (1 only in the archive); being written: binlog.000042
        """);
  }

  @Test
  void binlogsWithoutArchiveHaveNoTierColumn() throws Exception {
    JsonNode binlogs = AdminClient.JSON.readTree(Contract.json("binlogs"));
    ((ArrayNode) binlogs).remove(0);
    binlogs.forEach(b -> ((ObjectNode) b).put("tier", "local"));
    try (StubRelay local = new StubRelay().answer("GET", "/api/v1/binlogs", binlogs.toString())) {
      Run.Result r = Run.against(local, "binlogs");
      assertThat(r.code()).as(r.toString()).isZero();
      assertThat(r.out())
          .isEqualTo(
              """
          NAME           SIZE     FIRST EVENT (UTC)    LAST EVENT (UTC)     READERS
          binlog.000040  1.0 GiB  2026-11-13 00:00:01  2026-11-18 12:00:00  0
          binlog.000041  205 MiB  2026-11-18 12:00:00  2026-11-20 09:00:00  1
          binlog.000042  157 B    2026-11-20 09:00:00  -                    1

          3 files, 1.2 GiB; being written: binlog.000042
          """);
    }
  }

  @Test
  void gtid() {
    Run.Result r = Run.against(stub, "gtid");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(stub.only().path()).isEqualTo("/api/v1/gtid");
    assertThat(r.out())
        .isEqualTo(
            """
          Flavor:    mysql
          Executed:  3e11fa47-71ca-11e1-9e33-c80aa9429562:1-1207,
                     8a94f357-aab4-11df-86ab-c80aa9429562:1-5
          Purged:    3e11fa47-71ca-11e1-9e33-c80aa9429562:1-100
        """);
  }

  @Test
  void lagOnce() {
    Run.Result r = Run.against(stub, "lag");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(stub.only().path()).isEqualTo("/api/v1/lag");
    assertThat(r.out())
        .isEqualTo(
            """
        HOP                      STATE      LAG    BEHIND    SEND       CATCH-UP    ETA
        primary -> relay         STREAMING  0.4 s  -         -          -           -
        relay -> 101 (10.0.0.7)  SENDING    3.4 s  1.2 MiB   12 MiB/s   2.1 MiB/s   0:42
        relay -> 102 (10.0.0.8)  PAUSED     42 s   24 MiB    0 B/s      -512 KiB/s  -
        """);
    assertThat(r.out().lines().mapToInt(String::length).max().orElseThrow())
        .isLessThanOrEqualTo(80);
  }

  @ParameterizedTest
  @CsvSource({
    "status, /api/v1/status, status",
    "source, /api/v1/upstream, upstream",
    "binlogs, /api/v1/binlogs, binlogs",
    "gtid, /api/v1/gtid, gtid",
    "replicas, /api/v1/replicas, replicas",
    "replicas show 3, /api/v1/replicas/3, replica",
    "lag, /api/v1/lag, lag",
    "archive, /api/v1/archive, archive"
  })
  void jsonPrintsTheAnswerAsItIsPretty(String command, String path, String answer)
      throws Exception {
    List<String> args = new ArrayList<>(List.of(command.split(" ")));
    args.add("--json");
    Run.Result r = Run.against(stub, args.toArray(String[]::new));
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(stub.only()).isEqualTo(new StubRelay.Request("GET", path, null, null, ""));
    assertThat(AdminClient.JSON.readTree(r.out()))
        .isEqualTo(AdminClient.JSON.readTree(Contract.json(answer)));
    assertThat(r.out()).as("pretty-printed").contains("\n  \"").endsWith("\n");
    assertThat(r.err()).isEmpty();
  }
}
