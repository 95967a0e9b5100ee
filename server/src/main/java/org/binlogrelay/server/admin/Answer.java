package org.binlogrelay.server.admin;

import java.nio.charset.StandardCharsets;

/**
 * One HTTP answer of the admin API: status, content type and body. Immutable.
 *
 * @param status the HTTP status code
 * @param contentType the body's media type
 * @param body the body's bytes
 */
public record Answer(int status, String contentType, byte[] body) {
  static final String JSON = "application/json; charset=utf-8";

  /** Prometheus text exposition format 0.0.4. */
  static final String PROMETHEUS = "text/plain; version=0.0.4; charset=utf-8";

  static Answer text(int status, String contentType, String body) {
    return new Answer(status, contentType, body.getBytes(StandardCharsets.UTF_8));
  }

  /** The body as text, for tests and logs. */
  public String bodyText() {
    return new String(body, StandardCharsets.UTF_8);
  }
}
