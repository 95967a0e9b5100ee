package org.binlogrelay.server.admin;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.binlogrelay.server.metrics.ReplicaView;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin API's routing, authentication and JSON (docs/admin-api.md): one request in, one {@link
 * Answer} out, with no network code, so that it is tested without sockets. {@link AdminServer}
 * feeds it from Netty.
 *
 * <p>Errors are answered as {@code {"error": ..., "code": ...}} with the status the contract names;
 * an unexpected exception is logged here with its stack trace and answered 500 with its one-line
 * message only.
 *
 * <p>Thread-safe (no state besides the immutable token and the thread-safe {@link ObjectMapper}).
 */
public final class AdminApi {
  private static final Logger LOG = LoggerFactory.getLogger(AdminApi.class);

  /** The query parameter of {@code /metrics} that names a family to render (repeatable). */
  static final String METRICS_NAME_PARAMETER = "name[]";

  private static final Pattern REPLICA =
      Pattern.compile("/api/v1/replicas/([0-9]{1,19})(/(pause|resume|kick))?");

  private final RelayControl relay;
  private final byte[] token;
  private final ObjectMapper json = new ObjectMapper();

  /**
   * @param token the bearer token requests must carry, {@code null} for none
   */
  public AdminApi(RelayControl relay, String token) {
    this.relay = relay;
    this.token = token == null ? null : token.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Answers one request.
   *
   * @param method the HTTP method
   * @param path the request path, without the query string
   * @param authorization the {@code Authorization} header, {@code null} if absent
   * @param body the request body (empty if none)
   */
  public Answer handle(String method, String path, String authorization, byte[] body) {
    return handle(method, path, Map.of(), authorization, body);
  }

  /**
   * Answers one request with query parameters: {@code /metrics} takes {@code name[]} (repeatable),
   * the metric families to render, as the Prometheus clients do; the other paths ignore them.
   *
   * @param query the query parameters, decoded
   */
  public Answer handle(
      String method,
      String path,
      Map<String, List<String>> query,
      String authorization,
      byte[] body) {
    try {
      boolean open = path.equals("/health") || path.equals("/ready");
      if (!open && !authorized(authorization)) {
        return error(
            new ApiException(
                401,
                "unauthorized",
                "missing or wrong bearer token: send 'Authorization:"
                    + " Bearer <token>' with the token of --admin-token-file"));
      }
      return route(method, path, query, body);
    } catch (ApiException e) {
      return error(e);
    } catch (RuntimeException e) {
      LOG.error("admin API: {} {} failed", method, path, e);
      return error(
          new ApiException(
              500,
              "internal",
              "the relay failed to answer " + method + " " + path + ": " + oneLine(e)));
    }
  }

  /** Compares the presented token with the configured one in constant time. */
  private boolean authorized(String authorization) {
    if (token == null) {
      return true;
    }
    if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return false;
    }
    byte[] presented = authorization.substring(7).strip().getBytes(StandardCharsets.UTF_8);
    return MessageDigest.isEqual(presented, token);
  }

  private Answer route(String method, String path, Map<String, List<String>> query, byte[] body)
      throws ApiException {
    switch (path) {
      case "/health":
        requireGet(method);
        return probe(relay.unhealthy(), "UP", "DOWN");
      case "/ready":
        requireGet(method);
        return probe(relay.notReady(), "READY", "NOT_READY");
      case "/metrics":
        requireGet(method);
        List<String> names = query.getOrDefault(METRICS_NAME_PARAMETER, List.of());
        return Answer.text(
            200,
            Answer.PROMETHEUS,
            names.isEmpty() ? relay.scrape() : relay.scrape(Set.copyOf(names)));
      case "/api/v1/status":
        requireGet(method);
        return ok(Views.status(relay));
      case "/api/v1/upstream":
        requireGet(method);
        return ok(upstreamOrConflict());
      case "/api/v1/upstream/stop":
        requirePost(method);
        requirePrimary();
        relay.stopUpstream();
        return ok(upstreamOrConflict());
      case "/api/v1/upstream/start":
        requirePost(method);
        requirePrimary();
        relay.startUpstream();
        return ok(upstreamOrConflict());
      case "/api/v1/upstream/change":
        requirePost(method);
        requirePrimary();
        return ok(change(body));
      case "/api/v1/binlogs":
        requireGet(method);
        return ok(Views.binlogs(relay));
      case "/api/v1/binlogs/rotate":
        requirePost(method);
        requirePrimary();
        return ok(new Views.RotatedJson(relay.rotate()));
      case "/api/v1/binlogs/purge":
        requirePost(method);
        return ok(purge(body));
      case "/api/v1/gtid":
        requireGet(method);
        return ok(Views.gtid(relay));
      case "/api/v1/replicas":
        requireGet(method);
        return ok(relay.replicas().stream().map(Views::replica).toList());
      case "/api/v1/lag":
        requireGet(method);
        return ok(Views.lag(relay));
      case "/api/v1/archive":
        requireGet(method);
        return ok(Views.archive(relay.archive().orElseThrow(AdminApi::noArchive)));
      case PitrDownload.PATH:
        // GET is streamed by AdminServer (pitrDownload); HEAD and the rest get here.
        throw new ApiException(
            405, "method_not_allowed", method + " is not allowed here; download with GET");
      case "/api/v1/pitr/plan":
        requirePost(method);
        return ok(pitrPlan(body));
      default:
        return replica(method, path);
    }
  }

  private Answer replica(String method, String path) throws ApiException {
    Matcher m = REPLICA.matcher(path);
    if (!m.matches()) {
      throw ApiException.notFound("no such endpoint: " + path + " (see docs/admin-api.md)");
    }
    long id;
    try {
      id = Long.parseLong(m.group(1));
    } catch (NumberFormatException e) {
      throw ApiException.notFound("no replica " + m.group(1));
    }
    String action = m.group(3);
    if (action == null) {
      requireGet(method);
      return ok(Views.replica(find(id)));
    }
    requirePost(method);
    find(id);
    boolean done =
        switch (action) {
          case "pause" -> relay.pause(id);
          case "resume" -> relay.resume(id);
          default -> relay.kick(id);
        };
    if (!done) {
      throw ApiException.notFound("replica " + id + " is not connected");
    }
    if (action.equals("kick")) {
      return ok(new Views.KickedJson(id));
    }
    return ok(Views.replica(awaitPaused(id, action.equals("pause"))));
  }

  /**
   * The replica's view once its event loop applied the pause or resume (it runs there, a moment
   * later): polls the dump's own state (cheap) for up to half a second, then samples the replica's
   * lag once.
   */
  private ReplicaView awaitPaused(long id, boolean paused) throws ApiException {
    for (int i = 0; i < 50 && relay.paused(id).map(p -> p != paused).orElse(false); i++) {
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    return find(id);
  }

  private ReplicaView find(long id) throws ApiException {
    return relay.replicas().stream()
        .filter(v -> v.status().id() == id)
        .findFirst()
        .orElseThrow(
            () ->
                ApiException.notFound(
                    "replica "
                        + id
                        + " is not connected (GET /api/v1/replicas lists"
                        + " the connected ones)"));
  }

  private Views.UpstreamJson upstreamOrConflict() throws ApiException {
    requirePrimary();
    return Views.upstream(relay);
  }

  private void requirePrimary() throws ApiException {
    if (!relay.primaryConfigured()) {
      throw ApiException.conflict(
          "no primary is configured: the relay only serves its stored binlogs (start it"
              + " with --primary)");
    }
  }

  private static ApiException noArchive() {
    return ApiException.conflict(
        "no archive is configured: the relay keeps its binlogs in its data directory only (start"
            + " it with --archive s3://bucket/prefix, see docs/archive.md)");
  }

  private Views.SwitchedUpstreamJson change(byte[] body) throws ApiException {
    JsonNode b = object(body, true);
    String host = text(b, "host");
    Integer port = null;
    if (b.has("port") && !b.get("port").isNull()) {
      if (!b.get("port").canConvertToInt()
          || b.get("port").asInt() < 1
          || b.get("port").asInt() > 65535) {
        throw ApiException.badRequest("\"port\" must be a number in 1..65535");
      }
      port = b.get("port").asInt();
    }
    if (host != null && host.isBlank()) {
      throw ApiException.badRequest("\"host\" is empty");
    }
    var done = relay.changeUpstream(host, port, text(b, "user"), text(b, "password"));
    return new Views.SwitchedUpstreamJson(Views.upstream(relay), done.from());
  }

  private Views.PurgeJson purge(byte[] body) throws ApiException {
    JsonNode b = object(body, false);
    String to = text(b, "to");
    String beforeText = text(b, "before");
    if ((to == null) == (beforeText == null)) {
      throw ApiException.badRequest(
          "give exactly one of \"to\" (a file name, like PURGE BINARY LOGS TO) and"
              + " \"before\" (an ISO-8601 time, like PURGE BINARY LOGS BEFORE)");
    }
    Instant before = null;
    if (beforeText != null) {
      try {
        before = Instant.parse(beforeText);
      } catch (DateTimeParseException e) {
        throw ApiException.badRequest(
            "\"before\": '"
                + beforeText
                + "' is not an ISO-8601 UTC time such as"
                + " 2026-11-20T00:00:00Z");
      }
    }
    boolean force = false;
    if (b.has("force")) {
      if (b.get("force").getNodeType() != JsonNodeType.BOOLEAN) {
        throw ApiException.badRequest("\"force\" must be true or false");
      }
      force = b.get("force").asBoolean();
    }
    return Views.purge(relay.purge(to, before, force));
  }

  private PitrPlanner.PlanJson pitrPlan(byte[] body) throws ApiException {
    JsonNode b = object(body, true);
    var request =
        new PitrPlanner.Request(
            text(b, "untilTime"),
            text(b, "stopBeforeGtid"),
            text(b, "stopAfterGtids"),
            text(b, "backupGtids"));
    try {
      return PitrPlanner.plan(relay.binlogs(), request);
    } catch (IOException e) {
      LOG.warn("admin API: planning a recovery failed", e);
      throw new ApiException(500, "internal", "reading the binlog failed: " + oneLine(e));
    }
  }

  /**
   * {@code GET /api/v1/pitr/binlog?name=F&end=P} (the one streamed answer, written by {@link
   * AdminServer}): the file to stream, or the error to answer.
   *
   * @param authorization the {@code Authorization} header, {@code null} if absent
   * @param query the query parameters
   */
  PitrDownload.Outcome pitrDownload(String authorization, Map<String, List<String>> query) {
    try {
      if (!authorized(authorization)) {
        return new PitrDownload.Outcome(
            handle("GET", PitrDownload.PATH, authorization, null), null);
      }
      return new PitrDownload.Outcome(null, PitrDownload.open(relay.binlogs(), query));
    } catch (ApiException e) {
      return new PitrDownload.Outcome(error(e), null);
    } catch (IOException | RuntimeException e) {
      LOG.error("admin API: GET {} failed", PitrDownload.PATH, e);
      return new PitrDownload.Outcome(
          error(new ApiException(500, "internal", "reading the binlog failed: " + oneLine(e))),
          null);
    }
  }

  private JsonNode object(byte[] body, boolean required) throws ApiException {
    if (body.length == 0) {
      if (required) {
        throw ApiException.badRequest(
            "this command needs a JSON object body (see docs/admin-api.md)");
      }
      return json.createObjectNode();
    }
    JsonNode node;
    try {
      node = json.readTree(body);
    } catch (IOException e) {
      throw ApiException.badRequest("the body is not valid JSON: " + oneLine(e));
    }
    if (node == null || !node.isObject()) {
      throw ApiException.badRequest("the body must be a JSON object");
    }
    return node;
  }

  private static String text(JsonNode body, String field) throws ApiException {
    JsonNode n = body.get(field);
    if (n == null || n.isNull()) {
      return null;
    }
    if (!n.isTextual()) {
      throw ApiException.badRequest("\"" + field + "\" must be a string");
    }
    return n.asText();
  }

  private static void requireGet(String method) throws ApiException {
    if (!method.equals("GET") && !method.equals("HEAD")) {
      throw new ApiException(405, "method_not_allowed", method + " is not allowed here; use GET");
    }
  }

  private static void requirePost(String method) throws ApiException {
    if (!method.equals("POST")) {
      throw new ApiException(
          405, "method_not_allowed", method + " is not allowed here; commands are POST");
    }
  }

  private Answer probe(Optional<String> problem, String up, String down) {
    return json(
        problem.isEmpty() ? 200 : 503,
        new Views.ProbeJson(problem.isEmpty() ? up : down, problem.orElse(null)));
  }

  private Answer ok(Object body) {
    return json(200, body);
  }

  private Answer error(ApiException e) {
    return json(e.status(), new Views.ErrorJson(e.getMessage(), e.code()));
  }

  private Answer json(int status, Object body) {
    try {
      return new Answer(status, Answer.JSON, json.writeValueAsBytes(body));
    } catch (JsonProcessingException e) {
      LOG.error("admin API: cannot render an answer as JSON", e);
      return Answer.text(
          500,
          Answer.JSON,
          "{\"error\":\"the relay could not render its answer\",\"code\":\"internal\"}");
    }
  }

  static String oneLine(Throwable e) {
    String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }
}
