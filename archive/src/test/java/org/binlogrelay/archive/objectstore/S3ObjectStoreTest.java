package org.binlogrelay.archive.objectstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.binlogrelay.archive.objectstore.ObjectStore.ListPage;
import org.binlogrelay.archive.objectstore.ObjectStore.ObjectInfo;
import org.binlogrelay.archive.objectstore.ObjectStore.Part;
import org.binlogrelay.archive.objectstore.ObjectStoreException.Kind;
import org.binlogrelay.archive.testing.S3FaultProxy;
import org.binlogrelay.archive.testing.S3FaultProxy.Fault;
import org.binlogrelay.archive.testing.S3FaultProxy.Rule;
import org.binlogrelay.archive.testing.S3ProxyProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;

/**
 * {@link S3ObjectStore} against a real S3-compatible server (s3proxy 2.6.0, filesystem backend, a
 * child JVM) directly or through {@link S3FaultProxy}. One server for the class; tests use their
 * own keys. The stop and pause tests bring the server back before they end.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS) // a guard against a hang, not a timed assertion
class S3ObjectStoreTest {
  private static S3ProxyProcess s3;
  private static S3FaultProxy proxy;
  private static S3ObjectStore store;
  private static final Random RANDOM = new Random(18);

  private final List<S3ObjectStore> extraStores = new ArrayList<>();

  @BeforeAll
  static void startServer() throws IOException {
    s3 = S3ProxyProcess.start();
    proxy = new S3FaultProxy(s3.endpoint());
    store = new S3ObjectStore(settings(S3ProxyProcess.BUCKET).withEndpoint(s3.endpoint()));
  }

  @AfterAll
  static void stopServer() throws IOException {
    if (store != null) {
      store.close();
    }
    if (proxy != null) {
      proxy.close();
    }
    if (s3 != null) {
      s3.close();
    }
  }

  @AfterEach
  void closeExtraStores() {
    proxy.clearRules();
    proxy.clearExchanges();
    extraStores.forEach(S3ObjectStore::close);
  }

  private static S3Settings settings(String bucket) {
    return S3Settings.forBucket(bucket)
        .withPathStyle(true)
        .withRegion("us-east-1")
        .withStaticCredentials(S3ProxyProcess.IDENTITY, S3ProxyProcess.CREDENTIAL)
        .withTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(30));
  }

  /** A store through the fault proxy, with its settings changed by {@code change}. */
  private S3ObjectStore viaProxy(UnaryOperator<S3Settings> change) {
    S3ObjectStore s =
        new S3ObjectStore(
            change.apply(settings(S3ProxyProcess.BUCKET).withEndpoint(proxy.endpoint())));
    extraStores.add(s);
    return s;
  }

  @Test
  void putHeadAndRangedGets() throws IOException {
    byte[] bytes = randomBytes(100_000);

    String etag =
        store.put(
            "t1/binlog.000001", body(bytes), bytes.length, md5(bytes), Map.of("sha256", "ab"));

    // s3proxy 2.6.0 (filesystem): a single PUT's ETag is the hex MD5 of the bytes, as on AWS.
    assertThat(etag).isEqualTo(hex(md5(bytes)));
    ObjectInfo info = store.head("t1/binlog.000001").orElseThrow();
    assertThat(info.size()).isEqualTo(bytes.length);
    assertThat(info.etag()).isEqualTo(etag);
    assertThat(info.userMetadata()).containsEntry("sha256", "ab");
    assertThat(read(store.get("t1/binlog.000001", 0, -1))).isEqualTo(bytes);
    assertThat(read(store.get("t1/binlog.000001", 1000, 5000)))
        .isEqualTo(java.util.Arrays.copyOfRange(bytes, 1000, 6000));
    assertThat(read(store.get("t1/binlog.000001", 99_990, -1)))
        .isEqualTo(java.util.Arrays.copyOfRange(bytes, 99_990, 100_000));
    assertThat(read(store.get("t1/binlog.000001", 5, 0))).isEmpty();
    assertThat(store.head("t1/nothing-here")).isEmpty();
    assertThatThrownBy(() -> store.get("t1/nothing-here", 0, -1))
        .isInstanceOf(ObjectStoreException.class)
        .extracting(e -> ((ObjectStoreException) e).kind())
        .isEqualTo(Kind.NOT_FOUND);
  }

  @Test
  void listsInPages() {
    S3ObjectStore small =
        viaProxy(s -> s.withEndpoint(S3ObjectStoreTest.s3.endpoint()).withListPageSize(3));
    for (int i = 1; i <= 7; i++) {
      byte[] b = ("file " + i).getBytes(java.nio.charset.StandardCharsets.UTF_8);
      store.put("t2/meta/binlog.00000" + i + ".meta", body(b), b.length, md5(b), Map.of());
    }
    byte[] other = {1};
    store.put("t2/other", body(other), 1, md5(other), Map.of());

    List<String> keys = new ArrayList<>();
    List<Boolean> truncated = new ArrayList<>();
    String after = null;
    do {
      ListPage page = small.list("t2/meta/", after);
      page.objects().forEach(o -> keys.add(o.key()));
      truncated.add(page.truncated());
      after = page.objects().isEmpty() ? null : page.objects().get(page.objects().size() - 1).key();
      if (!page.truncated()) {
        break;
      }
    } while (true);

    assertThat(keys)
        .containsExactly(
            "t2/meta/binlog.000001.meta",
            "t2/meta/binlog.000002.meta",
            "t2/meta/binlog.000003.meta",
            "t2/meta/binlog.000004.meta",
            "t2/meta/binlog.000005.meta",
            "t2/meta/binlog.000006.meta",
            "t2/meta/binlog.000007.meta");
    assertThat(truncated).containsExactly(true, true, false);
    ListPage one = store.list("t2/meta/binlog.000007", null);
    assertThat(one.objects()).hasSize(1);
    assertThat(one.objects().get(0).size()).isEqualTo(6);
    assertThat(one.objects().get(0).etag())
        .isEqualTo(hex(md5("file 7".getBytes(java.nio.charset.StandardCharsets.UTF_8))));
  }

  @Test
  void multipartUploadListPartsCompleteAndAbort() throws IOException {
    byte[] part1 = randomBytes(5 * 1024 * 1024);
    byte[] part2 = randomBytes(12_345);
    String key = "t3/binlog.000001";

    String uploadId = store.createMultipart(key, Map.of("size", "5255225"));
    String e1 = store.uploadPart(key, uploadId, 1, body(part1), part1.length, md5(part1));
    String e2 = store.uploadPart(key, uploadId, 2, body(part2), part2.length, md5(part2));

    assertThat(e1).isEqualTo(hex(md5(part1)));
    assertThat(e2).isEqualTo(hex(md5(part2)));
    assertThat(store.listParts(key, uploadId))
        .containsExactly(new Part(1, e1, part1.length), new Part(2, e2, part2.length));
    assertThat(store.listMultipartUploads("t3/"))
        .contains(new ObjectStore.PendingUpload(key, uploadId));

    String etag =
        store.completeMultipart(key, uploadId, List.of(new Part(2, e2, 0), new Part(1, e1, 0)));

    System.out.println("s3proxy multipart ETag: " + etag);
    assertThat(etag).isEqualTo(multipartEtag(List.of(part1, part2)));
    ObjectInfo info = store.head(key).orElseThrow();
    assertThat(info.etag()).isEqualTo(etag);
    assertThat(info.size()).isEqualTo(part1.length + part2.length);
    assertThat(info.userMetadata()).containsEntry("size", "5255225");
    byte[] whole = read(store.get(key, 0, -1));
    assertThat(java.util.Arrays.copyOfRange(whole, 0, part1.length)).isEqualTo(part1);
    assertThat(java.util.Arrays.copyOfRange(whole, part1.length, whole.length)).isEqualTo(part2);
    assertThat(store.listMultipartUploads("t3/")).isEmpty();

    String abandoned = store.createMultipart("t3/binlog.000002", Map.of());
    store.uploadPart("t3/binlog.000002", abandoned, 1, body(part2), part2.length, md5(part2));
    assertThat(store.listMultipartUploads("t3/"))
        .containsExactly(new ObjectStore.PendingUpload("t3/binlog.000002", abandoned));
    store.abortMultipart("t3/binlog.000002", abandoned);
    store.abortMultipart("t3/binlog.000002", abandoned); // gone already: no error

    assertThat(store.listMultipartUploads("t3/")).isEmpty();
    assertThat(store.head("t3/binlog.000002")).isEmpty();
  }

  @Test
  void deleteIsIdempotent() {
    byte[] b = randomBytes(10);
    store.put("t4/x", body(b), b.length, md5(b), Map.of());

    store.delete("t4/x");
    store.delete("t4/x");

    assertThat(store.head("t4/x")).isEmpty();
  }

  @Test
  void wrongContentMd5IsRefusedAsChecksum() {
    byte[] b = randomBytes(1000);
    byte[] wrong = md5(randomBytes(10));

    assertKind(() -> store.put("t5/x", body(b), b.length, wrong, Map.of()), Kind.CHECKSUM)
        .contains("BadDigest");
    String upload = store.createMultipart("t5/y", Map.of());
    assertKind(() -> store.uploadPart("t5/y", upload, 1, body(b), b.length, wrong), Kind.CHECKSUM);
    store.abortMultipart("t5/y", upload);
    assertThat(store.head("t5/x")).isEmpty();
  }

  @Test
  void missingBucketIsNoBucket() {
    S3ObjectStore other = new S3ObjectStore(settings("no-such-bucket").withEndpoint(s3.endpoint()));
    extraStores.add(other);
    byte[] b = {1, 2, 3};

    assertKind(() -> other.put("k", body(b), 3, md5(b), Map.of()), Kind.NO_BUCKET)
        .contains("the bucket no-such-bucket does not exist");
    assertKind(() -> other.list("", null), Kind.NO_BUCKET);
  }

  @Test
  void slowDownIsRetriedByTheSdkThenServerError() {
    S3ObjectStore s = viaProxy(x -> x.withMaxAttempts(2));
    String path = "/" + S3ProxyProcess.BUCKET + "/t6/once";
    byte[] b = randomBytes(5000);
    proxy.add(Rule.on("PUT", path).nth(1).fault(Fault.slowDown()));

    s.put("t6/once", body(b), b.length, md5(b), Map.of());

    assertThat(proxy.exchanges())
        .extracting(S3FaultProxy.Exchange::status)
        .containsExactly(503, 200);
    assertThat(proxy.completedWrites(path)).isEqualTo(1);

    proxy.add(Rule.on("PUT", "/" + S3ProxyProcess.BUCKET + "/t6/always").fault(Fault.slowDown()));
    assertKind(() -> s.put("t6/always", body(b), b.length, md5(b), Map.of()), Kind.SERVER_ERROR)
        .contains("SlowDown, HTTP 503");
    proxy.add(Rule.on("GET", ".*").fault(Fault.internalError()));
    assertKind(() -> s.get("t6/once", 0, -1), Kind.SERVER_ERROR).contains("InternalError");
    assertThat(proxy.completedWrites("/" + S3ProxyProcess.BUCKET + "/t6/always")).isZero();
  }

  /**
   * What goes on the wire: Content-MD5 on every PUT and UploadPart, no flexible-checksum trailer
   * (s3proxy 2.6.0 refuses x-amz-trailer, gaul/s3proxy#795).
   */
  @Test
  void writesCarryContentMd5AndNoChecksumTrailer() {
    S3ObjectStore s = viaProxy(x -> x);
    byte[] b = randomBytes(70_000);
    s.put("t12/single", body(b), b.length, md5(b), Map.of());
    String upload = s.createMultipart("t12/multi", Map.of());
    String e1 = s.uploadPart("t12/multi", upload, 1, body(b), b.length, md5(b));
    s.completeMultipart("t12/multi", upload, List.of(new Part(1, e1, 0)));

    List<S3FaultProxy.Exchange> writes =
        proxy.exchanges().stream().filter(e -> e.method().equals("PUT")).toList();
    assertThat(writes).hasSize(2);
    String md5 = java.util.Base64.getEncoder().encodeToString(md5(b));
    for (S3FaultProxy.Exchange e : writes) {
      // Over plain http the SDK signs each chunk (aws-chunked, STREAMING-AWS4-HMAC-SHA256-PAYLOAD,
      // no trailer); s3proxy 2.6.0 accepts it and still checks Content-MD5.
      assertThat(e.headers())
          .containsEntry("content-md5", md5)
          .doesNotContainKey("x-amz-trailer")
          .doesNotContainKey("x-amz-checksum-crc32");
      assertThat(e.headers().get("x-amz-content-sha256")).doesNotContain("TRAILER");
      assertThat(
              e.headers()
                  .getOrDefault("x-amz-decoded-content-length", e.headers().get("content-length")))
          .isEqualTo(Integer.toString(b.length));
    }
    assertThat(proxy.completedWrites("/" + S3ProxyProcess.BUCKET + "/t12/single")).isEqualTo(1);
    assertThat(proxy.completedWrites("/" + S3ProxyProcess.BUCKET + "/t12/multi")).isEqualTo(1);
  }

  @Test
  void accessDeniedNamesThePermission() {
    S3ObjectStore s = viaProxy(x -> x);
    proxy.add(Rule.on(null, ".*").fault(Fault.accessDenied()));
    byte[] b = randomBytes(100);

    assertKind(() -> s.put("t7/k", body(b), b.length, md5(b), Map.of()), Kind.ACCESS_DENIED)
        .contains("need s3:PutObject on arn:aws:s3:::" + S3ProxyProcess.BUCKET + "/t7/k");
    assertKind(() -> s.list("t7/", null), Kind.ACCESS_DENIED).contains("need s3:ListBucket");
    assertKind(() -> s.head("t7/k"), Kind.ACCESS_DENIED).contains("need s3:GetObject");
    assertKind(() -> s.delete("t7/k"), Kind.ACCESS_DENIED).contains("need s3:DeleteObject");
  }

  @Test
  void aResetMidBodyIsRetriedAndWritesOnce() throws IOException {
    S3ObjectStore s = viaProxy(x -> x.withMaxAttempts(3));
    String path = "/" + S3ProxyProcess.BUCKET + "/t8/k";
    byte[] b = randomBytes(300_000);
    proxy.add(Rule.on("PUT", path).nth(1).fault(Fault.reset()));

    s.put("t8/k", body(b), b.length, md5(b), Map.of());

    assertThat(proxy.exchanges())
        .extracting(S3FaultProxy.Exchange::status)
        .containsExactly(-1, 200);
    assertThat(proxy.completedWrites(path)).isEqualTo(1);
    assertThat(read(store.get("t8/k", 0, -1))).isEqualTo(b);
  }

  @Test
  void aStalledAnswerIsATimeout() {
    S3ObjectStore s =
        viaProxy(
            x ->
                x.withMaxAttempts(1)
                    .withTimeouts(
                        Duration.ofSeconds(2), Duration.ofSeconds(1), Duration.ofSeconds(3)));
    proxy.add(Rule.on("HEAD", ".*").fault(Fault.stall()));

    assertKind(() -> s.head("t9/k"), Kind.TIMEOUT).contains("HeadObject");
  }

  @Test
  void aStoppedServerIsUnreachableAndARestartKeepsTheObjects() throws Exception {
    byte[] b = randomBytes(1000);
    store.put("t10/k", body(b), b.length, md5(b), Map.of());
    S3ObjectStore s =
        new S3ObjectStore(
            settings(S3ProxyProcess.BUCKET).withEndpoint(s3.endpoint()).withMaxAttempts(1));
    extraStores.add(s);

    s3.stop();
    try {
      // the first request may go out on a pooled connection the server closed: a broken
      // connection; the next one finds the port closed
      assertKind(() -> s.put("t10/j", body(b), b.length, md5(b), Map.of()), Kind.UNREACHABLE);
      assertKind(() -> s.head("t10/k"), Kind.UNREACHABLE).contains("cannot connect");
    } finally {
      s3.restart();
    }

    assertThat(read(store.get("t10/k", 0, -1))).isEqualTo(b);
  }

  /**
   * The JDK client's sync S3 client honours apiCallAttemptTimeout against a hung server (SIGSTOP:
   * the kernel still accepts connections, nothing answers): the socket read limit is set far
   * higher, so only the SDK's own timer can end the call.
   */
  @Test
  void aPausedServerIsATimeoutNotAHang() throws Exception {
    S3ObjectStore s =
        new S3ObjectStore(
            settings(S3ProxyProcess.BUCKET)
                .withEndpoint(s3.endpoint())
                .withMaxAttempts(1)
                .withTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(1), Duration.ofSeconds(2))
                .withSocketTimeout(Duration.ofSeconds(50)));
    extraStores.add(s);
    byte[] b = randomBytes(200_000);
    s.put("t11/warm", body(b), b.length, md5(b), Map.of()); // a pooled keep-alive connection

    s3.pause();
    try {
      ObjectStoreException put =
          catchObjectStoreException(() -> s.put("t11/k", body(b), b.length, md5(b), Map.of()));
      ObjectStoreException get = catchObjectStoreException(() -> read(s.get("t11/warm", 0, -1)));

      for (ObjectStoreException e : List.of(put, get)) {
        assertThat(e.kind()).as(e.getMessage()).isEqualTo(Kind.TIMEOUT);
        assertThat(e.getCause())
            .isInstanceOfAny(ApiCallAttemptTimeoutException.class, ApiCallTimeoutException.class);
      }
    } finally {
      s3.resume();
    }
    assertThat(s.head("t11/warm")).isPresent();
  }

  private static ObjectStoreException catchObjectStoreException(
      org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
    Throwable t = org.assertj.core.api.Assertions.catchThrowable(call);
    assertThat(t).isInstanceOf(ObjectStoreException.class);
    return (ObjectStoreException) t;
  }

  private static org.assertj.core.api.AbstractStringAssert<?> assertKind(
      org.assertj.core.api.ThrowableAssert.ThrowingCallable call, Kind kind) {
    Throwable t = org.assertj.core.api.Assertions.catchThrowable(call);
    assertThat(t).isInstanceOf(ObjectStoreException.class);
    ObjectStoreException e = (ObjectStoreException) t;
    assertThat(e.kind()).as(e.getMessage()).isEqualTo(kind);
    return assertThat(e.getMessage());
  }

  private static ObjectStore.BodySource body(byte[] bytes) {
    return () -> new ByteArrayInputStream(bytes);
  }

  private static byte[] read(InputStream in) {
    try (in) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static byte[] randomBytes(int n) {
    byte[] b = new byte[n];
    RANDOM.nextBytes(b);
    return b;
  }

  static byte[] md5(byte[] bytes) {
    try {
      return MessageDigest.getInstance("MD5").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String hex(byte[] bytes) {
    return HexFormat.of().formatHex(bytes);
  }

  /** S3's multipart ETag: the MD5 of the parts' binary MD5s, then "-" and the part count. */
  private static String multipartEtag(List<byte[]> parts) {
    java.io.ByteArrayOutputStream md5s = new java.io.ByteArrayOutputStream();
    parts.forEach(p -> md5s.writeBytes(md5(p)));
    return hex(md5(md5s.toByteArray())) + "-" + parts.size();
  }
}
