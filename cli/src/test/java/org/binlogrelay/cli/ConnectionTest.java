package org.binlogrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where relayctl connects, the bearer token it sends, and the exit codes for an unreachable relay
 * and a 401.
 */
class ConnectionTest {
  private static final String TOKEN = "tok-3f9a1c7e5b";

  @Test
  void urlComesFromTheOptionOrTheEnvironment() throws Exception {
    try (StubRelay stub = new StubRelay().answer("GET", "/api/v1/gtid", Contract.json("gtid"))) {
      assertThat(new Run().env("RELAYCTL_URL", stub.url()).run("gtid").code()).isZero();
      assertThat(new Run().run("gtid", "--url", stub.url() + "/").code())
          .as("option after the command")
          .isZero();
      assertThat(
              new Run()
                  .env("RELAYCTL_URL", "http://127.0.0.1:1")
                  .run("--url", stub.url(), "gtid")
                  .code())
          .as("the option wins over the environment")
          .isZero();
      assertThat(stub.requests()).hasSize(3).allMatch(r -> r.path().equals("/api/v1/gtid"));
    }
  }

  @Test
  void unreachableRelayExitsWithThree() throws Exception {
    int port;
    try (StubRelay gone = new StubRelay()) {
      port = gone.port();
    }
    Run.Result r = new Run().run("--url", "http://127.0.0.1:" + port, "status");
    assertThat(r.code()).isEqualTo(Relayctl.UNREACHABLE);
    assertThat(r.err())
        .isEqualTo(
            "relayctl: cannot reach the relay at http://127.0.0.1:"
                + port
                + ": connection refused\n");
    assertThat(r.out()).isEmpty();
  }

  @Test
  void noAnswerWithinTheTimeoutExitsWithThree() throws Exception {
    try (StubRelay silent = new StubRelay().hang()) {
      Run.Result r = Run.against(silent, "--timeout", "300ms", "status");
      assertThat(r.code()).isEqualTo(Relayctl.UNREACHABLE);
      assertThat(r.err())
          .isEqualTo(
              "relayctl: cannot reach the relay at " + silent.url() + ": no answer within 0.3 s\n");
    }
  }

  @Test
  void tokenFromFileOrEnvironmentIsSentAsBearer(@TempDir Path dir) throws Exception {
    Path tokenFile = Files.writeString(dir.resolve("token"), TOKEN + "\n");
    try (StubRelay stub =
        new StubRelay().token(TOKEN).answer("GET", "/api/v1/gtid", Contract.json("gtid"))) {
      Run.Result fromFile = Run.against(stub, "--token-file", tokenFile.toString(), "gtid");
      Run.Result fromEnv = new Run().env("RELAYCTL_TOKEN", TOKEN).on(stub, "gtid");
      Run.Result fileWins =
          new Run()
              .env("RELAYCTL_TOKEN", "wrong")
              .on(stub, "gtid", "--token-file", tokenFile.toString());
      for (Run.Result r : new Run.Result[] {fromFile, fromEnv, fileWins}) {
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.out() + r.err()).doesNotContain(TOKEN);
      }
      assertThat(stub.requests())
          .extracting(StubRelay.Request::authorization)
          .containsOnly("Bearer " + TOKEN);
    }
  }

  @Test
  void unauthorizedExitsWithFourAndNeverPrintsTheToken() throws Exception {
    try (StubRelay stub =
        new StubRelay().token(TOKEN).answer("GET", "/api/v1/status", Contract.json("status"))) {
      Run.Result none = Run.against(stub, "status");
      assertThat(none.code()).isEqualTo(Relayctl.UNAUTHORIZED);
      assertThat(none.err())
          .isEqualTo(
              "relayctl: unauthorized: the relay at "
                  + stub.url()
                  + " wants a bearer token; give --token-file FILE or RELAYCTL_TOKEN\n");
      Run.Result wrong = new Run().env("RELAYCTL_TOKEN", "not-" + TOKEN).on(stub, "status");
      assertThat(wrong.code()).isEqualTo(Relayctl.UNAUTHORIZED);
      assertThat(wrong.err())
          .isEqualTo("relayctl: unauthorized: the relay at " + stub.url() + " refused the token\n");
      assertThat(wrong.out() + wrong.err()).doesNotContain(TOKEN);
      Run.Result post = Run.against(stub, "replica", "kick", "3");
      assertThat(post.code()).isEqualTo(Relayctl.UNAUTHORIZED);
    }
  }

  @Test
  void badTokenFileOrUrlIsAUsageError(@TempDir Path dir) throws Exception {
    Path empty = Files.writeString(dir.resolve("empty"), "\n");
    Run.Result missing = new Run().run("--token-file", dir.resolve("absent").toString(), "status");
    assertThat(missing.code()).isEqualTo(Relayctl.USAGE);
    assertThat(missing.err())
        .isEqualTo("relayctl: --token-file " + dir.resolve("absent") + ": no such file\n");
    Run.Result blank = new Run().run("--token-file", empty.toString(), "status");
    assertThat(blank.code()).isEqualTo(Relayctl.USAGE);
    assertThat(blank.err())
        .isEqualTo("relayctl: --token-file " + empty + ": the first line is empty\n");
    Run.Result url = new Run().run("--url", "127.0.0.1:9307", "status");
    assertThat(url.code()).isEqualTo(Relayctl.USAGE);
    assertThat(url.err())
        .isEqualTo("relayctl: --url '127.0.0.1:9307' must look like http://HOST:PORT\n");
    assertThat(new Run().run("--timeout", "soon", "status").code()).isEqualTo(Relayctl.USAGE);
  }

  @Test
  void errorsThatAreNotTheContractsStillGiveOneLine() throws Exception {
    try (StubRelay stub =
        new StubRelay()
            .answer("GET", "/api/v1/status", 502, "<html>\n<b>Bad gateway</b>\n</html>")
            .answer("GET", "/api/v1/gtid", 200, "<html>not json</html>")
            .answer(
                "GET",
                "/api/v1/binlogs",
                500,
                "{\"error\":\"store failed:\\nI/O error\",\"code\":\"internal\"}")) {
      Run.Result proxy = Run.against(stub, "status");
      assertThat(proxy.code()).isEqualTo(Relayctl.RELAY_ERROR);
      assertThat(proxy.err()).isEqualTo("relayctl: HTTP 502 from GET /api/v1/status\n");
      Run.Result notJson = Run.against(stub, "gtid");
      assertThat(notJson.code()).isEqualTo(Relayctl.RELAY_ERROR);
      assertThat(notJson.err())
          .isEqualTo(
              "relayctl: GET "
                  + stub.url()
                  + "/api/v1/gtid answered with something that "
                  + "is not JSON; is --url the relay's admin port?\n");
      Run.Result twoLines = Run.against(stub, "binlogs");
      assertThat(twoLines.err()).isEqualTo("relayctl: store failed: I/O error\n");
    }
  }
}
