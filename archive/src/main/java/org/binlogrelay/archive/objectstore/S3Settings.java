package org.binlogrelay.archive.objectstore;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;

/**
 * How {@link S3ObjectStore} reaches its bucket: the endpoint (AWS when absent), the region, the
 * addressing style, the credentials and the time limits. Immutable (build one with {@link
 * #forBucket(String)} and the {@code with...} methods), hence thread-safe.
 *
 * <p>Defaults: AWS's endpoint for the region; the region from the SDK's default chain ({@code
 * AWS_REGION}, {@code aws.region}, the profile, instance metadata), or {@code us-east-1} when an
 * endpoint is given and the chain has none (S3-compatible servers mostly ignore it); credentials
 * from the SDK's default chain (environment, system properties, web identity, profile, container
 * and instance roles); connect timeout 10 s, socket read timeout 60 s, one attempt 2 min, one call
 * with its retries 10 min, 3 attempts, pages of 1,000 keys.
 *
 * @param bucket the bucket
 * @param endpoint the server's URL ({@code http://127.0.0.1:9000}), or empty for AWS
 * @param region the signing region, or empty for the default chain
 * @param pathStyle {@code http://host/bucket/key} instead of {@code http://bucket.host/key} (most
 *     S3-compatible servers need it)
 * @param staticCredentials fixed keys instead of the default chain (tests), or empty
 * @param connectTimeout limit on opening a connection
 * @param socketTimeout limit on one read from a connection (also bounds reading a GET's body)
 * @param attemptTimeout limit on one HTTP attempt of a call
 * @param callTimeout limit on a whole call, its retries included
 * @param maxAttempts attempts of a call (1: no retry), with the SDK's standard backoff between them
 * @param listPageSize keys per page of {@link ObjectStore#list} (S3 caps it at 1,000)
 */
public record S3Settings(
    String bucket,
    Optional<URI> endpoint,
    Optional<String> region,
    boolean pathStyle,
    Optional<StaticCredentials> staticCredentials,
    Duration connectTimeout,
    Duration socketTimeout,
    Duration attemptTimeout,
    Duration callTimeout,
    int maxAttempts,
    int listPageSize) {

  /**
   * An access key pair given explicitly. Its {@code toString} hides the secret.
   *
   * @param accessKeyId the access key id
   * @param secretAccessKey the secret
   */
  public record StaticCredentials(String accessKeyId, String secretAccessKey) {
    @Override
    public String toString() {
      return "StaticCredentials[accessKeyId=" + accessKeyId + ", secretAccessKey=***]";
    }
  }

  public S3Settings {
    if (bucket == null || bucket.isEmpty()) {
      throw new IllegalArgumentException("no bucket");
    }
    endpoint.ifPresent(
        e -> {
          String scheme = e.getScheme();
          if (!"http".equals(scheme) && !"https".equals(scheme) || e.getHost() == null) {
            throw new IllegalArgumentException(
                "invalid endpoint '" + e + "': expected http://host[:port] or https://host[:port]");
          }
        });
    positive(connectTimeout, "connect timeout");
    positive(socketTimeout, "socket timeout");
    positive(attemptTimeout, "attempt timeout");
    positive(callTimeout, "call timeout");
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("max attempts " + maxAttempts + " < 1");
    }
    if (listPageSize < 1 || listPageSize > 1000) {
      throw new IllegalArgumentException("list page size " + listPageSize + " not in 1..1000");
    }
  }

  /** The defaults (see the class comment) for {@code bucket} on AWS. */
  public static S3Settings forBucket(String bucket) {
    return new S3Settings(
        bucket,
        Optional.empty(),
        Optional.empty(),
        false,
        Optional.empty(),
        Duration.ofSeconds(10),
        Duration.ofSeconds(60),
        Duration.ofMinutes(2),
        Duration.ofMinutes(10),
        3,
        1000);
  }

  public S3Settings withEndpoint(URI value) {
    return new S3Settings(
        bucket,
        Optional.of(value),
        region,
        pathStyle,
        staticCredentials,
        connectTimeout,
        socketTimeout,
        attemptTimeout,
        callTimeout,
        maxAttempts,
        listPageSize);
  }

  public S3Settings withRegion(String value) {
    return new S3Settings(
        bucket,
        endpoint,
        Optional.of(value),
        pathStyle,
        staticCredentials,
        connectTimeout,
        socketTimeout,
        attemptTimeout,
        callTimeout,
        maxAttempts,
        listPageSize);
  }

  public S3Settings withPathStyle(boolean value) {
    return new S3Settings(
        bucket,
        endpoint,
        region,
        value,
        staticCredentials,
        connectTimeout,
        socketTimeout,
        attemptTimeout,
        callTimeout,
        maxAttempts,
        listPageSize);
  }

  public S3Settings withStaticCredentials(String accessKeyId, String secretAccessKey) {
    return new S3Settings(
        bucket,
        endpoint,
        region,
        pathStyle,
        Optional.of(new StaticCredentials(accessKeyId, secretAccessKey)),
        connectTimeout,
        socketTimeout,
        attemptTimeout,
        callTimeout,
        maxAttempts,
        listPageSize);
  }

  /** The three time limits at once: connect, one attempt (also the socket read limit), one call. */
  public S3Settings withTimeouts(Duration connect, Duration attempt, Duration call) {
    return new S3Settings(
        bucket,
        endpoint,
        region,
        pathStyle,
        staticCredentials,
        connect,
        attempt,
        attempt,
        call,
        maxAttempts,
        listPageSize);
  }

  /** The limit on one read from a connection (the time a stalled GET body may hang). */
  public S3Settings withSocketTimeout(Duration value) {
    return new S3Settings(
        bucket,
        endpoint,
        region,
        pathStyle,
        staticCredentials,
        connectTimeout,
        value,
        attemptTimeout,
        callTimeout,
        maxAttempts,
        listPageSize);
  }

  public S3Settings withMaxAttempts(int value) {
    return new S3Settings(
        bucket,
        endpoint,
        region,
        pathStyle,
        staticCredentials,
        connectTimeout,
        socketTimeout,
        attemptTimeout,
        callTimeout,
        value,
        listPageSize);
  }

  public S3Settings withListPageSize(int value) {
    return new S3Settings(
        bucket,
        endpoint,
        region,
        pathStyle,
        staticCredentials,
        connectTimeout,
        socketTimeout,
        attemptTimeout,
        callTimeout,
        maxAttempts,
        value);
  }

  /** Where the credentials come from, for messages (never the secret). */
  public String credentialsSource() {
    return staticCredentials.isPresent()
        ? "the static access key " + staticCredentials.get().accessKeyId()
        : "the AWS SDK's default credentials chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY,"
            + " aws.accessKeyId, AWS_WEB_IDENTITY_TOKEN_FILE, ~/.aws/credentials profile"
            + " AWS_PROFILE, container or instance role)";
  }

  private static void positive(Duration d, String what) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(what + " must be positive: " + d);
    }
  }
}
