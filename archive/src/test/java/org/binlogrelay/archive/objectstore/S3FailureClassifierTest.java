package org.binlogrelay.archive.objectstore;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import org.binlogrelay.archive.objectstore.ObjectStoreException.Kind;
import org.binlogrelay.archive.objectstore.S3FailureClassifier.LocalBodyException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.AbortedException;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** The SDK's and the JDK's failures, as the SDK builds them, mapped to kinds and messages. */
class S3FailureClassifierTest {
  private final S3FailureClassifier classifier =
      new S3FailureClassifier("binlogs", S3Settings.forBucket("binlogs").credentialsSource());

  @ParameterizedTest
  @CsvSource({
    "404, NoSuchBucket, NO_BUCKET",
    "400, BadDigest, CHECKSUM",
    "400, InvalidDigest, CHECKSUM",
    "400, XAmzContentSHA256Mismatch, CHECKSUM",
    "403, AccessDenied, ACCESS_DENIED",
    "403, InvalidAccessKeyId, ACCESS_DENIED",
    "403, SignatureDoesNotMatch, ACCESS_DENIED",
    "400, ExpiredToken, ACCESS_DENIED",
    "403, '', ACCESS_DENIED",
    "401, '', ACCESS_DENIED",
    "404, NoSuchKey, NOT_FOUND",
    "404, NoSuchUpload, NOT_FOUND",
    "404, '', NOT_FOUND",
    "400, RequestTimeout, TIMEOUT",
    "503, SlowDown, SERVER_ERROR",
    "500, InternalError, SERVER_ERROR",
    "502, '', SERVER_ERROR",
    "429, TooManyRequests, SERVER_ERROR",
    "400, InvalidPart, REJECTED",
    "416, InvalidRange, REJECTED",
    "501, NotImplemented, SERVER_ERROR",
    "301, PermanentRedirect, REJECTED"
  })
  void serverAnswersByCodeThenStatus(int status, String code, Kind kind) {
    ObjectStoreException e =
        classifier.classify(S3Operation.PUT_OBJECT, "binlogs/binlog.000001", answer(status, code));

    assertThat(e.kind()).isEqualTo(kind);
    assertThat(e.getMessage())
        .startsWith("PutObject s3://binlogs/binlogs/binlog.000001 ")
        .contains("HTTP " + status);
    assertThat(e.getCause()).isInstanceOf(S3Exception.class);
  }

  @Test
  void accessDeniedNamesThePermissionAndTheCredentialsChain() {
    ObjectStoreException put =
        classifier.classify(S3Operation.PUT_OBJECT, "p/k", answer(403, "AccessDenied"));
    ObjectStoreException list =
        classifier.classify(S3Operation.LIST_OBJECTS, "p/meta/", answer(403, "AccessDenied"));
    ObjectStoreException abort =
        classifier.classify(S3Operation.ABORT_MULTIPART_UPLOAD, "p/k", answer(403, "AccessDenied"));
    ObjectStoreException parts =
        classifier.classify(S3Operation.LIST_PARTS, "p/k", answer(403, "AccessDenied"));

    assertThat(put.getMessage())
        .contains("PutObject s3://binlogs/p/k was refused (AccessDenied, HTTP 403")
        .contains("default credentials chain")
        .contains("need s3:PutObject on arn:aws:s3:::binlogs/p/k")
        .contains(
            "s3:PutObject, s3:GetObject, s3:ListBucket, s3:DeleteObject, s3:AbortMultipartUpload,"
                + " s3:ListMultipartUploadParts");
    assertThat(list.getMessage())
        .contains("ListObjectsV2 s3://binlogs/p/meta/*")
        .contains("need s3:ListBucket on arn:aws:s3:::binlogs;");
    assertThat(abort.getMessage()).contains("need s3:AbortMultipartUpload");
    assertThat(parts.getMessage()).contains("need s3:ListMultipartUploadParts");
    assertThat(classifier.classify(S3Operation.HEAD_OBJECT, "p/k", answer(403, "")).getMessage())
        .contains("need s3:GetObject")
        .contains("403 instead of 404");
    assertThat(
            classifier
                .classify(S3Operation.DELETE_OBJECT, "p/k", answer(403, "AccessDenied"))
                .getMessage())
        .contains("need s3:DeleteObject");
    assertThat(
            new S3FailureClassifier(
                    "binlogs",
                    S3Settings.forBucket("binlogs")
                        .withStaticCredentials("AKID", "secret")
                        .credentialsSource())
                .classify(S3Operation.GET_OBJECT, "p/k", answer(403, "AccessDenied"))
                .getMessage())
        .contains("the static access key AKID need s3:GetObject")
        .doesNotContain("secret");
  }

  @Test
  void noBucketSaysWhichBucket() {
    assertThat(
            classifier
                .classify(S3Operation.PUT_OBJECT, "k", answer(404, "NoSuchBucket"))
                .getMessage())
        .contains("the bucket binlogs does not exist");
  }

  @Test
  void timeouts() {
    assertThat(kindOf(ApiCallAttemptTimeoutException.create(1000))).isEqualTo(Kind.TIMEOUT);
    assertThat(kindOf(ApiCallTimeoutException.create(3000))).isEqualTo(Kind.TIMEOUT);
    assertThat(kindOf(clientFailure(new SocketTimeoutException("Read timed out"))))
        .isEqualTo(Kind.TIMEOUT);
    assertThat(
            kindOf(
                SdkClientException.builder()
                    .cause(ApiCallAttemptTimeoutException.create(1000))
                    .build()))
        .isEqualTo(Kind.TIMEOUT);
    assertThat(
            classifier
                .classify(S3Operation.GET_OBJECT, "k", ApiCallTimeoutException.create(3000))
                .getMessage())
        .startsWith("GetObject s3://binlogs/k failed: no answer in time");
  }

  @Test
  void unreachable() {
    assertThat(kindOf(clientFailure(new ConnectException("Connection refused"))))
        .isEqualTo(Kind.UNREACHABLE);
    assertThat(kindOf(clientFailure(new UnknownHostException("s3.nowhere.invalid"))))
        .isEqualTo(Kind.UNREACHABLE);
    assertThat(kindOf(clientFailure(new SocketException("Connection reset"))))
        .isEqualTo(Kind.UNREACHABLE);
    assertThat(kindOf(new IOException("Premature EOF"))).isEqualTo(Kind.UNREACHABLE);
    assertThat(
            classifier
                .classify(
                    S3Operation.PUT_OBJECT, "k", clientFailure(new ConnectException("refused")))
                .getMessage())
        .contains("cannot connect")
        .contains("endpoint");
  }

  @Test
  void missingCredentialsAreAccessDenied() {
    SdkClientException e =
        SdkClientException.create(
            "Unable to load credentials from any of the providers in the chain"
                + " AwsCredentialsProviderChain(...)");

    ObjectStoreException classified = classifier.classify(S3Operation.PUT_OBJECT, "k", e);

    assertThat(classified.kind()).isEqualTo(Kind.ACCESS_DENIED);
    assertThat(classified.getMessage()).contains("no credentials found");
  }

  @Test
  void localReadFailuresAreNotBlamedOnTheNetwork() {
    ObjectStoreException e =
        classifier.classify(
            S3Operation.UPLOAD_PART,
            "k",
            clientFailure(new LocalBodyException("cannot open", new IOException("EIO"))));

    assertThat(e.kind()).isEqualTo(Kind.REJECTED);
    assertThat(e.getMessage()).contains("reading the local bytes to send failed");
  }

  @Test
  void interruptedAndUnknown() {
    assertThat(kindOf(AbortedException.create("Thread was interrupted"))).isEqualTo(Kind.TIMEOUT);
    assertThat(kindOf(new IllegalStateException("odd"))).isEqualTo(Kind.REJECTED);
    ObjectStoreException already = new ObjectStoreException(Kind.CHECKSUM, "x");
    assertThat(classifier.classify(S3Operation.PUT_OBJECT, "k", already)).isSameAs(already);
  }

  private Kind kindOf(Throwable t) {
    return classifier.classify(S3Operation.PUT_OBJECT, "k", t).kind();
  }

  private static SdkClientException clientFailure(Throwable cause) {
    return SdkClientException.builder()
        .message("Unable to execute HTTP request: " + cause.getMessage())
        .cause(cause)
        .build();
  }

  private static S3Exception answer(int status, String code) {
    return (S3Exception)
        S3Exception.builder()
            .statusCode(status)
            .message(code + " (Service: S3, Status Code: " + status + ")")
            .awsErrorDetails(
                AwsErrorDetails.builder()
                    .errorCode(code.isEmpty() ? null : code)
                    .errorMessage(code.isEmpty() ? null : "the server's words")
                    .build())
            .build();
  }
}
