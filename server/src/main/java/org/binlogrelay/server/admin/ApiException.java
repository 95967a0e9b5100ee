package org.binlogrelay.server.admin;

/**
 * A request the admin API answers with an error: the HTTP status, a stable code word and one line a
 * DBA can act on (docs/admin-api.md, "Conventions"). Never carries a stack trace to the client.
 */
public final class ApiException extends Exception {
  private final int status;
  private final String code;

  public ApiException(int status, String code, String message) {
    super(message, null, false, false);
    this.status = status;
    this.code = code;
  }

  public int status() {
    return status;
  }

  public String code() {
    return code;
  }

  static ApiException badRequest(String message) {
    return new ApiException(400, "bad_request", message);
  }

  static ApiException notFound(String message) {
    return new ApiException(404, "not_found", message);
  }

  static ApiException conflict(String message) {
    return new ApiException(409, "conflict", message);
  }

  static ApiException unavailable(String message) {
    return new ApiException(503, "unavailable", message);
  }
}
