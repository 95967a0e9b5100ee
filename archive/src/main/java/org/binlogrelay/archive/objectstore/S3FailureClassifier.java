package org.binlogrelay.archive.objectstore;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.PortUnreachableException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.net.http.HttpTimeoutException;
import java.util.Locale;
import org.binlogrelay.archive.objectstore.ObjectStoreException.Kind;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.AbortedException;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkServiceException;

/**
 * Turns what the AWS SDK or the JDK threw into an {@link ObjectStoreException} of the right {@link
 * Kind}, with a message that names the call, the bucket and key, the server's error code and what
 * to do. Stateless, thread-safe.
 *
 * <p>Server answers are classified by their S3 error code first (the XML {@code <Code>}), then by
 * HTTP status: {@code NoSuchBucket} NO_BUCKET; {@code BadDigest}, {@code InvalidDigest}, {@code
 * XAmzContentSHA256Mismatch} CHECKSUM; 401/403 and the credential codes ACCESS_DENIED; {@code
 * NoSuchKey}, {@code NoSuchUpload}, other 404s NOT_FOUND; {@code RequestTimeout} TIMEOUT; 5xx, 429,
 * {@code SlowDown} SERVER_ERROR; any other refusal REJECTED. Client-side failures by the cause
 * chain: the SDK's call or attempt timeout, socket timeouts TIMEOUT; refused connections, unknown
 * hosts, resets and other I/O UNREACHABLE; no credentials found ACCESS_DENIED.
 */
final class S3FailureClassifier {
  private final String bucket;
  private final String credentialsSource;

  /**
   * @param bucket the bucket every call goes to
   * @param credentialsSource where the credentials come from, in words (never a secret)
   */
  S3FailureClassifier(String bucket, String credentialsSource) {
    this.bucket = bucket;
    this.credentialsSource = credentialsSource;
  }

  /**
   * The exception to throw for {@code failure} of {@code operation} on {@code key} (the key prefix
   * for listings).
   */
  ObjectStoreException classify(S3Operation operation, String key, Throwable failure) {
    if (failure instanceof ObjectStoreException ose) {
      return ose;
    }
    String what = operation.apiName() + " " + target(operation, key);
    if (failure instanceof SdkServiceException service) {
      return serverAnswer(operation, key, what, service);
    }
    return clientSide(what, failure);
  }

  private ObjectStoreException serverAnswer(
      S3Operation operation, String key, String what, SdkServiceException e) {
    int status = e.statusCode();
    String code = errorCode(e);
    String serverMessage = serverMessage(e);
    String answer =
        " (" + (code.isEmpty() ? "" : code + ", ") + "HTTP " + status + serverMessage + ")";
    Kind kind = kindOf(status, code);
    String message =
        switch (kind) {
          case NO_BUCKET ->
              what
                  + " failed: the bucket "
                  + bucket
                  + " does not exist"
                  + answer
                  + "; create it, or fix the bucket in the archive URL";
          case CHECKSUM ->
              what
                  + " failed: the server refused the bytes' checksum"
                  + answer
                  + "; the body was damaged on the way or changed while it was sent";
          case ACCESS_DENIED ->
              what
                  + " was refused"
                  + answer
                  + ": the credentials from "
                  + credentialsSource
                  + " need "
                  + operation.permission()
                  + " on "
                  + resource(operation, key)
                  + (operation == S3Operation.HEAD_OBJECT
                      ? " (and s3:ListBucket on arn:aws:s3:::"
                          + bucket
                          + ", without which AWS answers 403 instead of 404 for a missing key)"
                      : "")
                  + "; the archive needs "
                  + S3Operation.ALL_PERMISSIONS;
          case NOT_FOUND -> what + " failed: no such object or upload" + answer;
          case TIMEOUT ->
              what
                  + " failed: the server timed out waiting for the request"
                  + answer
                  + "; the network to the object store is slow or stalled";
          case SERVER_ERROR ->
              what + " failed: the server could not do it now" + answer + "; it will be retried";
          default ->
              what
                  + " was refused"
                  + answer
                  + regionAdvice(code, status)
                  + "; this server may not support what the archive needs (S3 API)";
        };
    return new ObjectStoreException(kind, message, e);
  }

  static Kind kindOf(int status, String code) {
    switch (code) {
      case "NoSuchBucket":
        return Kind.NO_BUCKET;
      case "BadDigest":
      case "InvalidDigest":
      case "XAmzContentSHA256Mismatch":
        return Kind.CHECKSUM;
      case "AccessDenied":
      case "AllAccessDisabled":
      case "InvalidAccessKeyId":
      case "SignatureDoesNotMatch":
      case "ExpiredToken":
      case "InvalidToken":
      case "TokenRefreshRequired":
      case "AccountProblem":
        return Kind.ACCESS_DENIED;
      case "NoSuchKey":
      case "NoSuchUpload":
        return Kind.NOT_FOUND;
      case "RequestTimeout":
        return Kind.TIMEOUT;
      case "SlowDown":
      case "InternalError":
      case "ServiceUnavailable":
        return Kind.SERVER_ERROR;
      default:
        break;
    }
    if (status == 401 || status == 403) {
      return Kind.ACCESS_DENIED;
    }
    if (status == 404) {
      return Kind.NOT_FOUND;
    }
    if (status >= 500 || status == 429) {
      return Kind.SERVER_ERROR;
    }
    return Kind.REJECTED;
  }

  private static ObjectStoreException clientSide(String what, Throwable failure) {
    if (failure instanceof ApiCallAttemptTimeoutException
        || failure instanceof ApiCallTimeoutException) {
      return new ObjectStoreException(
          Kind.TIMEOUT,
          what
              + " failed: no answer in time ("
              + failure.getMessage()
              + "); the object store is slow, stalled or unreachable",
          failure);
    }
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof ApiCallAttemptTimeoutException || t instanceof ApiCallTimeoutException) {
        return clientSide(what, t);
      }
      if (t instanceof LocalBodyException local) {
        return new ObjectStoreException(
            Kind.REJECTED,
            what + " failed: reading the local bytes to send failed: " + local.getMessage(),
            failure);
      }
      if (t instanceof SocketTimeoutException || t instanceof HttpTimeoutException) {
        return new ObjectStoreException(
            Kind.TIMEOUT,
            what
                + " failed: no answer in time ("
                + describe(t)
                + "); the object store is slow, stalled or unreachable",
            failure);
      }
      if (t instanceof ConnectException
          || t instanceof NoRouteToHostException
          || t instanceof PortUnreachableException) {
        return new ObjectStoreException(
            Kind.UNREACHABLE,
            what
                + " failed: cannot connect ("
                + describe(t)
                + "); is the object store running and the endpoint right?",
            failure);
      }
      if (t instanceof UnknownHostException) {
        return new ObjectStoreException(
            Kind.UNREACHABLE,
            what + " failed: unknown host " + t.getMessage() + "; check the endpoint and DNS",
            failure);
      }
    }
    if (failure instanceof AbortedException || hasCause(failure, InterruptedIOException.class)) {
      return new ObjectStoreException(
          Kind.TIMEOUT, what + " was interrupted (" + describe(failure) + ")", failure);
    }
    String text = String.valueOf(failure.getMessage());
    if (failure instanceof SdkClientException
        && text.toLowerCase(Locale.ROOT).contains("unable to load credentials")) {
      return new ObjectStoreException(
          Kind.ACCESS_DENIED,
          what
              + " failed: no credentials found in the AWS SDK's default chain (set"
              + " AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, a profile, a web identity token or"
              + " an instance/container role): "
              + text,
          failure);
    }
    if (failure instanceof SdkClientException
        && text.toLowerCase(Locale.ROOT).contains("checksum")) {
      return new ObjectStoreException(
          Kind.CHECKSUM, what + " failed: the response's checksum did not match: " + text, failure);
    }
    if (hasCause(failure, IOException.class) || failure instanceof UncheckedIOException) {
      return new ObjectStoreException(
          Kind.UNREACHABLE,
          what + " failed: the connection broke (" + describe(rootCause(failure)) + ")",
          failure);
    }
    return new ObjectStoreException(Kind.REJECTED, what + " failed: " + describe(failure), failure);
  }

  private String target(S3Operation operation, String key) {
    return operation.onBucket()
        ? "s3://" + bucket + "/" + (key.isEmpty() ? "" : key + "*")
        : "s3://" + bucket + "/" + key;
  }

  private String resource(S3Operation operation, String key) {
    return operation.onBucket() ? "arn:aws:s3:::" + bucket : "arn:aws:s3:::" + bucket + "/" + key;
  }

  private static String regionAdvice(String code, int status) {
    if (status == 301
        || "PermanentRedirect".equals(code)
        || "AuthorizationHeaderMalformed".equals(code)
        || "IllegalLocationConstraintException".equals(code)) {
      return "; the bucket is in another region: set the archive's region";
    }
    return "";
  }

  private static String errorCode(SdkServiceException e) {
    if (e instanceof AwsServiceException aws
        && aws.awsErrorDetails() != null
        && aws.awsErrorDetails().errorCode() != null) {
      return aws.awsErrorDetails().errorCode();
    }
    return "";
  }

  private static String serverMessage(SdkServiceException e) {
    if (e instanceof AwsServiceException aws
        && aws.awsErrorDetails() != null
        && aws.awsErrorDetails().errorMessage() != null
        && !aws.awsErrorDetails().errorMessage().isBlank()) {
      return ": " + aws.awsErrorDetails().errorMessage();
    }
    return "";
  }

  private static boolean hasCause(Throwable failure, Class<? extends Throwable> type) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return true;
      }
    }
    return false;
  }

  private static Throwable rootCause(Throwable failure) {
    Throwable t = failure;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t;
  }

  private static String describe(Throwable t) {
    return t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
  }

  /**
   * A failure to read the caller's bytes (the local file), told apart from network failures: it is
   * not the object store's fault.
   */
  static final class LocalBodyException extends UncheckedIOException {
    private static final long serialVersionUID = 1L;

    LocalBodyException(String message, IOException cause) {
      super(message, cause);
    }
  }
}
