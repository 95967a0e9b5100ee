package org.binlogrelay.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.util.ArrayList;
import java.util.List;

/**
 * The admin API's JSON objects (docs/admin-api.md, "Objects" and the endpoints' answers) as
 * relayctl reads them: one record per object whose components are the object's keys, in the
 * contract's order. relayctl does not depend on the server's code (it only talks to its API), so
 * these mirror the server's {@code Views} records; both sides are checked against the same example
 * answers in {@code docs/admin-api/} (the server's {@code AdminContractTest}, relayctl's {@code
 * AdminObjectsTest}), so a renamed or added field on either side fails a test.
 *
 * <p>The components are the answer's JSON values as they came ({@link JsonNode}): {@code null} when
 * the key is absent, a {@code NullNode} when the relay sent {@code null}, so that {@link
 * HumanUnits} prints an unknown or unexpected value as {@code -} rather than failing. Keys relayctl
 * does not know are ignored (a newer relay may add fields). Nested objects are read with {@link
 * #of} from their component. Stateless; the records are immutable.
 */
final class AdminObjects {
  private static final ObjectMapper LENIENT =
      AdminClient.JSON.copy().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  private AdminObjects() {}

  /** {@code GET /api/v1/status}. */
  record StatusObject(
      JsonNode relay, JsonNode upstream, JsonNode store, JsonNode archive, JsonNode replicas) {}

  /** The {@code replicas} of {@link StatusObject}. */
  record ReplicaCountObject(JsonNode connected) {}

  /** Relay. */
  record RelayObject(
      JsonNode state,
      JsonNode version,
      JsonNode flavor,
      JsonNode serverId,
      JsonNode serverUuid,
      JsonNode replicaAddress,
      JsonNode startedAt,
      JsonNode uptimeSeconds) {}

  /**
   * Upstream ({@code GET /api/v1/upstream}, the upstream commands; the change answer adds
   * switchedFrom).
   */
  record UpstreamObject(
      JsonNode state,
      JsonNode source,
      JsonNode since,
      JsonNode lastError,
      JsonNode attempt,
      JsonNode connections,
      JsonNode primaryVersion,
      JsonNode primaryServerId,
      JsonNode tls,
      JsonNode semiSync,
      JsonNode position,
      JsonNode lastGtid,
      JsonNode secondsBehind,
      JsonNode bytesReceived,
      JsonNode eventsReceived,
      JsonNode transactionsReceived,
      JsonNode lastEventAt) {}

  /** Store. */
  record StoreObject(
      JsonNode condition,
      JsonNode dataDir,
      JsonNode files,
      JsonNode bytes,
      JsonNode head,
      JsonNode oldestEventAt,
      JsonNode executedGtids,
      JsonNode purgedGtids,
      JsonNode lastError) {}

  /** Binlog, an element of {@code GET /api/v1/binlogs}. */
  record BinlogObject(
      JsonNode name,
      JsonNode size,
      JsonNode firstEventAt,
      JsonNode lastEventAt,
      JsonNode open,
      JsonNode readers,
      JsonNode tier) {}

  /** Archive ({@code GET /api/v1/archive}, the {@code archive} of {@link StatusObject}). */
  record ArchiveObject(
      JsonNode location,
      JsonNode state,
      JsonNode currentFile,
      JsonNode pendingFiles,
      JsonNode pendingBytes,
      JsonNode oldestPendingAgeSeconds,
      JsonNode uploadedFiles,
      JsonNode uploadedBytes,
      JsonNode archivedFiles,
      JsonNode archivedBytes,
      JsonNode firstArchived,
      JsonNode lastArchived,
      JsonNode cacheBytes,
      JsonNode fetches,
      JsonNode fetchedBytes,
      JsonNode fetchFailures,
      JsonNode deletedFiles,
      JsonNode lastErrorKind,
      JsonNode lastError,
      JsonNode advice,
      JsonNode lastErrorAt,
      JsonNode nextAttemptAt,
      JsonNode encoding,
      JsonNode encryptionKeyId,
      JsonNode maxUploadRateBytesPerSecond) {}

  /** {@code GET /api/v1/gtid}. */
  record GtidObject(JsonNode flavor, JsonNode executed, JsonNode purged) {}

  /**
   * Replica ({@code GET /api/v1/replicas/{id}}, an element of {@code GET /api/v1/replicas}, pause,
   * resume).
   */
  record ReplicaObject(
      JsonNode id,
      JsonNode serverId,
      JsonNode host,
      JsonNode reportHost,
      JsonNode reportPort,
      JsonNode user,
      JsonNode uuid,
      JsonNode mode,
      JsonNode state,
      JsonNode connectedAt,
      JsonNode position,
      JsonNode bytesSent,
      JsonNode eventsSent,
      JsonNode transactionsSent,
      JsonNode bytesBehind,
      JsonNode secondsBehind,
      JsonNode sendRateBytesPerSecond,
      JsonNode catchUpRateBytesPerSecond,
      JsonNode etaSeconds,
      JsonNode stalls,
      JsonNode paused) {}

  /** {@code GET /api/v1/lag}. */
  record LagObject(JsonNode upstream, JsonNode replicas) {}

  /** The {@code upstream} of {@link LagObject}. */
  record UpstreamLagObject(JsonNode secondsBehind, JsonNode state) {}

  /** The answer of {@code POST /api/v1/binlogs/purge}. */
  record PurgeObject(
      JsonNode removed, JsonNode kept, JsonNode keptForReplicas, JsonNode bytes, JsonNode forced) {}

  /** The answer of {@code POST /api/v1/binlogs/rotate}. */
  record RotatedObject(JsonNode rotatedTo) {}

  /** The answer of {@code POST /api/v1/replicas/{id}/kick}. */
  record KickedObject(JsonNode kicked) {}

  /**
   * {@code node} as {@code type}; anything but a JSON object (absent, {@code null}, an unexpected
   * value) reads as an object without keys, whose components are all {@code null}.
   */
  static <T extends Record> T of(JsonNode node, Class<T> type) {
    JsonNode object = node != null && node.isObject() ? node : LENIENT.createObjectNode();
    try {
      return LENIENT.treeToValue(object, type);
    } catch (JsonProcessingException e) {
      // JsonNode components take any JSON value
      throw new IllegalStateException(type.getSimpleName() + " from " + object, e);
    }
  }

  /**
   * The elements of a JSON array as {@code type} (see {@link #of}); none if {@code node} is not an
   * array.
   */
  static <T extends Record> List<T> listOf(JsonNode node, Class<T> type) {
    List<T> out = new ArrayList<>();
    if (node != null && node.isArray()) {
      node.forEach(element -> out.add(of(element, type)));
    }
    return out;
  }

  /**
   * {@code value}, or a missing node when the key was absent (as {@link JsonNode#path} answers).
   */
  static JsonNode path(JsonNode value) {
    return value == null ? MissingNode.getInstance() : value;
  }
}
