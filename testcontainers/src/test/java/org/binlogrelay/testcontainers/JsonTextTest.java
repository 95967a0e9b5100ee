package org.binlogrelay.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The admin API's documented answers (docs/admin-api/*.json) read by the container's reader. */
class JsonTextTest {

  private static String doc(String name) throws IOException {
    return Files.readString(Path.of("..", "docs", "admin-api", name), StandardCharsets.UTF_8);
  }

  @Test
  void readsTheLagAnswer() throws IOException {
    Object lag = JsonText.parse(doc("lag.json"));
    Object upstream = JsonText.member(lag, "upstream");
    assertThat(JsonText.member(upstream, "secondsBehind")).isEqualTo(0.4);
    assertThat(JsonText.member(upstream, "state")).isEqualTo("STREAMING");
    List<?> replicas = (List<?>) JsonText.member(lag, "replicas");
    assertThat(replicas).hasSize(2);
    assertThat(JsonText.member(replicas.get(1), "etaSeconds")).isNull();
    assertThat(JsonText.member(replicas.get(1), "paused")).isEqualTo(true);
  }

  @Test
  void readsTheGtidAndStatusAnswers() throws IOException {
    assertThat(JsonText.member(JsonText.parse(doc("gtid.json")), "executed"))
        .isEqualTo(
            "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-1207,8a94f357-aab4-11df-86ab-c80aa9429562:1-5");
    Object status = JsonText.parse(doc("status.json"));
    assertThat(((Map<?, ?>) JsonText.member(status, "store")).get("condition")).isEqualTo("OPEN");
  }

  @Test
  void escapesAndErrors() {
    assertThat(JsonText.parse("{\"a\":\"x\\\"\\u00e9\\n\",\"b\":[],\"c\":{}}"))
        .isEqualTo(Map.of("a", "x\"é\n", "b", List.of(), "c", Map.of()));
    assertThatThrownBy(() -> JsonText.parse("{\"a\":1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not JSON");
    assertThatThrownBy(() -> JsonText.parse("{} x")).isInstanceOf(IllegalArgumentException.class);
  }
}
