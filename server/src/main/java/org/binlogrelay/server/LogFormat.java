package org.binlogrelay.server;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.encoder.Encoder;
import java.util.Locale;
import org.slf4j.ILoggerFactory;
import org.slf4j.Logger;

/**
 * How the relay's log lines look ({@code --log-format}): {@link #TEXT}, the pattern of {@code
 * logback.xml} ({@code 2025-01-01 12:00:00.000 INFO [thread] Logger: message}), or {@link #JSON},
 * one JSON object per line from Logback's {@link JsonEncoder} with the fields {@code timestamp}
 * (epoch milliseconds), {@code level}, {@code threadName}, {@code loggerName}, {@code
 * formattedMessage}, and {@code throwable} (null when there is none). JSON replaces the encoder of
 * the {@value #APPENDER} appender that {@code logback.xml} defines; a Logback configuration of
 * one's own ({@code -Dlogback.configurationFile}) without that appender is left alone. Applied
 * once, before the first line is logged.
 */
enum LogFormat {
  TEXT,
  JSON;

  /** The appender of {@code logback.xml} whose encoder JSON replaces. */
  static final String APPENDER = "STDERR";

  /** {@code text} or {@code json}, in any case. */
  static LogFormat parse(String text) {
    return switch (text.strip().toLowerCase(Locale.ROOT)) {
      case "text" -> TEXT;
      case "json" -> JSON;
      default ->
          throw new IllegalArgumentException(
              "log format '" + text + "' not understood; use text or json");
    };
  }

  /**
   * Makes {@code factory}'s {@value #APPENDER} appender write this format.
   *
   * @return false if there is no such appender (another Logback configuration, or another SLF4J
   *     backend)
   */
  boolean applyTo(ILoggerFactory factory) {
    if (this == TEXT) {
      return true;
    }
    if (!(factory instanceof LoggerContext context)) {
      return false;
    }
    Appender<ILoggingEvent> appender =
        context.getLogger(Logger.ROOT_LOGGER_NAME).getAppender(APPENDER);
    if (!(appender instanceof OutputStreamAppender<ILoggingEvent> stream)) {
      return false;
    }
    JsonEncoder encoder = new JsonEncoder();
    encoder.setContext(context);
    encoder.setWithContext(false);
    encoder.setWithSequenceNumber(false);
    encoder.setWithNanoseconds(false);
    encoder.setWithMessage(false);
    encoder.setWithFormattedMessage(true);
    encoder.setWithArguments(false);
    encoder.setWithMarkers(false);
    encoder.setWithKVPList(false);
    encoder.setWithMDC(false);
    encoder.start();
    Encoder<ILoggingEvent> text = stream.getEncoder();
    stream.setEncoder(encoder); // before the first line is logged: nothing is written concurrently
    if (text != null) {
      text.stop();
    }
    return true;
  }
}
