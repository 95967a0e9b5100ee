package org.binlogrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code lag --watch} with a fake terminal: two refreshes from a stub whose answers change, drawn
 * in place with ANSI escapes on a terminal, one table after another otherwise, JSON lines with
 * --json.
 */
class LagWatchTest {
  private static final String ESC = "\u001b";
  private StubRelay stub;

  @BeforeEach
  void start() throws Exception {
    stub =
        new StubRelay()
            .answer("GET", "/api/v1/lag", Contract.json("lag"))
            .answer("GET", "/api/v1/lag", Contract.json("lag-2"));
  }

  @AfterEach
  void stop() {
    stub.close();
  }

  @Test
  void onATerminalTheSecondFrameIsDrawnOverTheFirst() {
    Run run = new Run().terminal(true, 80);
    Run.Result r = run.on(stub, "lag", "--watch", "--interval", "2s", "--count", "2");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(stub.count("GET", "/api/v1/lag")).isEqualTo(2);
    assertThat(run.pauses).containsExactly(Duration.ofSeconds(2));

    String title = "relayctl lag: every 2.0 s from " + stub.url();
    String clock = "2026-11-20 10:00:00 UTC";
    String first =
        String.join(
                ESC + "[K\n",
                title + " ".repeat(80 - title.length() - clock.length()) + clock,
                "",
                "HOP                      STATE      LAG    BEHIND    SEND       CATCH-UP    ETA",
                "primary -> relay         STREAMING  0.4 s  -         -          -           -",
                "relay -> 101 (10.0.0.7)  SENDING    3.4 s  1.2 MiB   12 MiB/s   2.1 MiB/s   0:42",
                "relay -> 102 (10.0.0.8)  PAUSED     42 s   24 MiB    0 B/s      -512 KiB/s  -")
            + ESC
            + "[K\n";
    String second =
        String.join(
                ESC + "[K\n",
                title + " ".repeat(80 - title.length() - clock.length()) + clock,
                "",
                "HOP                      STATE      LAG    BEHIND    SEND       CATCH-UP    ETA",
                "primary -> relay         STREAMING  1.2 s  -         -          -           -",
                "relay -> 101 (10.0.0.7)  SENDING    1.7 s  614 KiB   12 MiB/s   2.1 MiB/s   0:21",
                "relay -> 102 (10.0.0.8)  SENDING    38 s   20 MiB    4.0 MiB/s  4.0 MiB/s   0:05")
            + ESC
            + "[K\n";
    assertThat(r.out())
        .isEqualTo(
            ESC + "[?25l" + first + ESC + "[J" + "\r" + ESC + "[6A" + second + ESC + "[J" + ESC
                + "[?25h");
  }

  @Test
  void aNarrowTerminalCutsTheHopColumnAndNoLineWraps() {
    Run.Result r = new Run().terminal(true, 60).on(stub, "lag", "--watch", "--count", "1");
    assertThat(r.code()).isZero();
    List<String> lines = r.out().replaceAll(ESC + "\\[[0-9;?]*[A-Za-z]", "").lines().toList();
    assertThat(lines).allSatisfy(line -> assertThat(line.length()).isLessThanOrEqualTo(60));
    assertThat(lines.get(2)).startsWith("HOP     ");
    assertThat(lines.get(4)).startsWith("relay~  SENDING  ");
  }

  @Test
  void elsewhereEachRefreshIsPrintedAfterTheLast() {
    Run.Result r = new Run().terminal(false, 80).on(stub, "lag", "--watch", "--count", "2");
    assertThat(r.code()).isZero();
    assertThat(r.out()).doesNotContain(ESC);
    assertThat(r.out().split("\n\n", -1)).hasSize(4);
    assertThat(r.out()).containsOnlyOnce("3.4 s").containsOnlyOnce("1.7 s");
    assertThat(r.out().indexOf("3.4 s")).isLessThan(r.out().indexOf("1.7 s"));
  }

  @Test
  void jsonPrintsOneDocumentPerRefresh() throws Exception {
    Run.Result r =
        new Run().terminal(true, 80).on(stub, "lag", "--watch", "--count", "2", "--json");
    assertThat(r.code()).isZero();
    List<String> lines = r.out().lines().toList();
    assertThat(lines).hasSize(2);
    assertThat(AdminClient.JSON.readTree(lines.get(0)))
        .isEqualTo(AdminClient.JSON.readTree(Contract.json("lag")));
    assertThat(AdminClient.JSON.readTree(lines.get(1)))
        .isEqualTo(AdminClient.JSON.readTree(Contract.json("lag-2")));
  }

  @Test
  void anErrorAfterTheFirstRefreshShowsInTheFrame() throws Exception {
    try (StubRelay flaky =
        new StubRelay()
            .answer("GET", "/api/v1/lag", Contract.json("lag"))
            .answer(
                "GET",
                "/api/v1/lag",
                503,
                "{\"error\":\"store is recovering\",\"code\":\"unavailable\"}")) {
      Run.Result r = new Run().terminal(false, 80).on(flaky, "lag", "--watch", "--count", "2");
      assertThat(r.code()).isZero();
      assertThat(r.out()).endsWith("\n\nrelayctl: store is recovering\n");
    }
  }

  @Test
  void anUnreachableRelayAtTheStartEndsTheWatch() throws Exception {
    int port;
    try (StubRelay gone = new StubRelay()) {
      port = gone.port();
    }
    Run.Result r =
        new Run().terminal(true, 80).run("--url", "http://127.0.0.1:" + port, "lag", "--watch");
    assertThat(r.code()).isEqualTo(Relayctl.UNREACHABLE);
    assertThat(r.out()).isEmpty();
  }
}
