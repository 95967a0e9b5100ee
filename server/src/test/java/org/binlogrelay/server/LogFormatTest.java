package org.binlogrelay.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import ch.qos.logback.core.OutputStreamAppender;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code --log-format json}: every line Logback writes is one JSON object with the fields operators
 * filter on.
 */
class LogFormatTest {

  /** A context like logback.xml's: a text appender named STDERR, here writing to memory. */
  private static ByteArrayOutputStream textAppender(LoggerContext context) {
    context.setMDCAdapter(new LogbackMDCAdapter());
    context.start();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern("%level %logger{0}: %msg%n");
    encoder.start();
    OutputStreamAppender<ILoggingEvent> appender = new OutputStreamAppender<>();
    appender.setName(LogFormat.APPENDER);
    appender.setContext(context);
    appender.setEncoder(encoder);
    appender.setOutputStream(bytes);
    appender.start();
    context.getLogger(Logger.ROOT_LOGGER_NAME).addAppender(appender);
    return bytes;
  }

  @Test
  void jsonLinesParseAndCarryLevelLoggerThreadAndMessage() throws IOException {
    LoggerContext context = new LoggerContext();
    ByteArrayOutputStream bytes = textAppender(context);
    assertThat(LogFormat.JSON.applyTo(context)).isTrue();
    Logger log = context.getLogger(Relay.class);
    log.info(
        "relay {}: {}",
        "running",
        "MySQL relay, replicas on /127.0.0.1:3307 \"quoted\"\nsecond line");
    log.warn("retention kept binlog.000001", new IllegalStateException("a replica reads it"));

    List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
    assertThat(lines).hasSize(2);
    Map<String, String> first = fields(lines.get(0));
    assertThat(first)
        .containsEntry("level", "INFO")
        .containsEntry("loggerName", Relay.class.getName())
        .containsEntry("threadName", Thread.currentThread().getName())
        .containsEntry(
            "formattedMessage",
            "relay running: MySQL relay, replicas on /127.0.0.1:3307 \"quoted\"\n" + "second line")
        .containsKey("timestamp")
        .doesNotContainKey("context")
        .doesNotContainKey("message");
    Map<String, String> second = fields(lines.get(1));
    assertThat(second).containsEntry("level", "WARN").containsKey("throwable");
  }

  @Test
  void textIsLeftAloneAndAForeignConfigurationIsReported() {
    LoggerContext context = new LoggerContext();
    ByteArrayOutputStream bytes = textAppender(context);
    assertThat(LogFormat.TEXT.applyTo(context)).isTrue();
    context.getLogger("x").info("hello");
    assertThat(bytes.toString(StandardCharsets.UTF_8)).isEqualTo("INFO x: hello\n");
    assertThat(LogFormat.JSON.applyTo(new LoggerContext())).as("no STDERR appender").isFalse();
    assertThat(LogFormat.parse(" JSON ")).isEqualTo(LogFormat.JSON);
    assertThatThrownBy(() -> LogFormat.parse("xml"))
        .hasMessage("log format 'xml' not understood; use text or json");
  }

  /**
   * The top-level fields of one JSON object (nested values as their raw text); fails unless the
   * line is one.
   */
  static Map<String, String> fields(String line) throws IOException {
    Map<String, String> fields = new HashMap<>();
    try (JsonParser parser = new JsonFactory().createParser(line)) {
      assertThat(parser.nextToken()).isEqualTo(JsonToken.START_OBJECT);
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String name = parser.currentName();
        JsonToken value = parser.nextToken();
        if (value == JsonToken.START_OBJECT || value == JsonToken.START_ARRAY) {
          parser.skipChildren();
          fields.put(name, "(nested)");
        } else {
          fields.put(name, parser.getText());
        }
      }
      assertThat(parser.currentToken()).isEqualTo(JsonToken.END_OBJECT);
      assertThat(parser.nextToken()).as("nothing after the object").isNull();
    }
    return fields;
  }
}
