package org.binlogrelay.archive.objectstore;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.binlogrelay.archive.objectstore.S3FailureClassifier.LocalBodyException;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListMultipartUploadsResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.ListPartsResponse;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.NoSuchUploadException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * {@link ObjectStore} on one bucket of S3 or an S3-compatible server (s3proxy, MinIO, Ceph RGW,
 * SeaweedFS), through the AWS SDK's synchronous client over the JDK's {@code HttpURLConnection}.
 *
 * <p>Checksums: the SDK's flexible checksums are asked for only when an operation requires them
 * ({@code WHEN_REQUIRED}, both ways), because its default (an {@code aws-chunked} body with an
 * {@code x-amz-checksum-crc32} trailer) is refused by s3proxy 2.6.0 and other S3-compatible servers
 * (gaul/s3proxy#795, #942); every PUT and UploadPart carries the caller's {@code Content-MD5}
 * instead, which every S3-compatible server checks.
 *
 * <p>Failures: every SDK or I/O failure, reading a GET's body included, becomes an {@link
 * ObjectStoreException} classified by {@link S3FailureClassifier}. The SDK retries a failed attempt
 * ({@link S3Settings#maxAttempts()}, standard backoff) before that.
 *
 * <p>Thread-safe: the SDK client is, and this class keeps no other state.
 */
public final class S3ObjectStore implements ObjectStore {
  private static final String FALLBACK_REGION = "us-east-1";

  private final S3Settings settings;
  private final S3Client client;
  private final S3FailureClassifier failures;

  /**
   * Builds the client. No request is made.
   *
   * @throws IllegalArgumentException if no region is given, none is found in the SDK's chain and no
   *     endpoint is given
   */
  public S3ObjectStore(S3Settings settings) {
    this.settings = settings;
    this.failures = new S3FailureClassifier(settings.bucket(), settings.credentialsSource());
    AwsCredentialsProvider credentials =
        settings
            .staticCredentials()
            .<AwsCredentialsProvider>map(
                c ->
                    StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(c.accessKeyId(), c.secretAccessKey())))
            .orElseGet(() -> DefaultCredentialsProvider.builder().build());
    var builder =
        S3Client.builder()
            .httpClientBuilder(
                UrlConnectionHttpClient.builder()
                    .connectionTimeout(settings.connectTimeout())
                    .socketTimeout(settings.socketTimeout()))
            .region(region(settings))
            .credentialsProvider(credentials)
            .forcePathStyle(settings.pathStyle())
            .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
            .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
            .overrideConfiguration(
                o ->
                    o.apiCallAttemptTimeout(settings.attemptTimeout())
                        .apiCallTimeout(settings.callTimeout())
                        .retryStrategy(r -> r.maxAttempts(settings.maxAttempts())));
    settings.endpoint().ifPresent(builder::endpointOverride);
    this.client = builder.build();
  }

  private static Region region(S3Settings settings) {
    if (settings.region().isPresent()) {
      return Region.of(settings.region().get());
    }
    try {
      return new DefaultAwsRegionProviderChain().getRegion();
    } catch (SdkClientException e) {
      if (settings.endpoint().isPresent()) {
        return Region.of(FALLBACK_REGION);
      }
      throw new IllegalArgumentException(
          "no region for the archive's bucket "
              + settings.bucket()
              + ": give one (archive-region) or set AWS_REGION or a profile's region ("
              + e.getMessage()
              + ")",
          e);
    }
  }

  /** The settings this store was built with. */
  public S3Settings settings() {
    return settings;
  }

  @Override
  public Optional<ObjectInfo> head(String key) {
    try {
      HeadObjectResponse r = client.headObject(b -> b.bucket(settings.bucket()).key(key));
      return Optional.of(
          new ObjectInfo(key, r.contentLength(), unquote(r.eTag()), lowerCaseKeys(r.metadata())));
    } catch (NoSuchKeyException e) {
      return Optional.empty();
    } catch (S3Exception e) {
      if (e.statusCode() == 404) {
        // HEAD answers carry no body, so a missing bucket looks like a missing key here; the
        // next PUT or listing says NoSuchBucket.
        return Optional.empty();
      }
      throw failures.classify(S3Operation.HEAD_OBJECT, key, e);
    } catch (SdkException e) {
      throw failures.classify(S3Operation.HEAD_OBJECT, key, e);
    }
  }

  @Override
  public String put(
      String key, BodySource body, long length, byte[] md5, Map<String, String> userMetadata) {
    String contentMd5 = base64Md5(md5);
    return call(
        S3Operation.PUT_OBJECT,
        key,
        () ->
            unquote(
                client
                    .putObject(
                        b ->
                            b.bucket(settings.bucket())
                                .key(key)
                                .contentLength(length)
                                .contentMD5(contentMd5)
                                .metadata(userMetadata),
                        requestBody(key, body, length))
                    .eTag()));
  }

  @Override
  public String createMultipart(String key, Map<String, String> userMetadata) {
    return call(
        S3Operation.CREATE_MULTIPART_UPLOAD,
        key,
        () ->
            client
                .createMultipartUpload(
                    b -> b.bucket(settings.bucket()).key(key).metadata(userMetadata))
                .uploadId());
  }

  @Override
  public String uploadPart(
      String key, String uploadId, int partNumber, BodySource body, long length, byte[] md5) {
    String contentMd5 = base64Md5(md5);
    return call(
        S3Operation.UPLOAD_PART,
        key,
        () ->
            unquote(
                client
                    .uploadPart(
                        b ->
                            b.bucket(settings.bucket())
                                .key(key)
                                .uploadId(uploadId)
                                .partNumber(partNumber)
                                .contentLength(length)
                                .contentMD5(contentMd5),
                        requestBody(key, body, length))
                    .eTag()));
  }

  @Override
  public List<Part> listParts(String key, String uploadId) {
    return call(
        S3Operation.LIST_PARTS,
        key,
        () -> {
          List<Part> parts = new ArrayList<>();
          Integer marker = null;
          while (true) {
            Integer after = marker;
            ListPartsResponse r =
                client.listParts(
                    b -> {
                      b.bucket(settings.bucket()).key(key).uploadId(uploadId);
                      if (after != null) {
                        b.partNumberMarker(after);
                      }
                    });
            for (var p : r.parts()) {
              parts.add(new Part(p.partNumber(), unquote(p.eTag()), p.size()));
            }
            if (!Boolean.TRUE.equals(r.isTruncated()) || r.nextPartNumberMarker() == null) {
              break;
            }
            marker = r.nextPartNumberMarker();
          }
          parts.sort(Comparator.comparingInt(Part::number));
          return List.copyOf(parts);
        });
  }

  @Override
  public String completeMultipart(String key, String uploadId, List<Part> parts) {
    List<CompletedPart> completed =
        parts.stream()
            .sorted(Comparator.comparingInt(Part::number))
            .map(p -> CompletedPart.builder().partNumber(p.number()).eTag(quote(p.etag())).build())
            .toList();
    return call(
        S3Operation.COMPLETE_MULTIPART_UPLOAD,
        key,
        () ->
            unquote(
                client
                    .completeMultipartUpload(
                        b ->
                            b.bucket(settings.bucket())
                                .key(key)
                                .uploadId(uploadId)
                                .multipartUpload(m -> m.parts(completed)))
                    .eTag()));
  }

  @Override
  public void abortMultipart(String key, String uploadId) {
    try {
      client.abortMultipartUpload(b -> b.bucket(settings.bucket()).key(key).uploadId(uploadId));
    } catch (NoSuchUploadException e) {
      // already gone: what the caller wanted
    } catch (SdkException e) {
      throw failures.classify(S3Operation.ABORT_MULTIPART_UPLOAD, key, e);
    }
  }

  @Override
  public List<PendingUpload> listMultipartUploads(String prefix) {
    return call(
        S3Operation.LIST_MULTIPART_UPLOADS,
        prefix,
        () -> {
          List<PendingUpload> uploads = new ArrayList<>();
          String keyMarker = null;
          String uploadIdMarker = null;
          while (true) {
            String k = keyMarker;
            String u = uploadIdMarker;
            ListMultipartUploadsResponse r =
                client.listMultipartUploads(
                    b -> {
                      b.bucket(settings.bucket()).prefix(prefix);
                      if (k != null) {
                        b.keyMarker(k);
                      }
                      if (u != null) {
                        b.uploadIdMarker(u);
                      }
                    });
            for (MultipartUpload m : r.uploads()) {
              uploads.add(new PendingUpload(m.key(), m.uploadId()));
            }
            if (!Boolean.TRUE.equals(r.isTruncated()) || r.nextKeyMarker() == null) {
              break;
            }
            keyMarker = r.nextKeyMarker();
            uploadIdMarker = r.nextUploadIdMarker();
          }
          return List.copyOf(uploads);
        });
  }

  @Override
  public InputStream get(String key, long offset, long length) {
    if (offset < 0) {
      throw new IllegalArgumentException("negative offset " + offset);
    }
    if (length == 0) {
      return InputStream.nullInputStream();
    }
    String range =
        length > 0
            ? "bytes=" + offset + "-" + (offset + length - 1)
            : offset > 0 ? "bytes=" + offset + "-" : null;
    InputStream in =
        call(
            S3Operation.GET_OBJECT,
            key,
            () -> client.getObject(b -> b.bucket(settings.bucket()).key(key).range(range)));
    return new ClassifyingInputStream(in, key);
  }

  @Override
  public ListPage list(String prefix, String startAfter) {
    return call(
        S3Operation.LIST_OBJECTS,
        prefix,
        () -> {
          ListObjectsV2Response r =
              client.listObjectsV2(
                  b -> {
                    b.bucket(settings.bucket()).prefix(prefix).maxKeys(settings.listPageSize());
                    if (startAfter != null) {
                      b.startAfter(startAfter);
                    }
                  });
          List<ObjectInfo> objects = new ArrayList<>(r.contents().size());
          for (S3Object o : r.contents()) {
            objects.add(new ObjectInfo(o.key(), o.size(), unquote(o.eTag()), Map.of()));
          }
          return new ListPage(objects, Boolean.TRUE.equals(r.isTruncated()));
        });
  }

  @Override
  public void delete(String key) {
    call(
        S3Operation.DELETE_OBJECT,
        key,
        () -> client.deleteObject(b -> b.bucket(settings.bucket()).key(key)));
  }

  @Override
  public void close() {
    client.close();
  }

  @Override
  public String toString() {
    return "S3ObjectStore[s3://"
        + settings.bucket()
        + settings.endpoint().map(e -> " at " + e).orElse("")
        + "]";
  }

  private <T> T call(S3Operation operation, String key, Supplier<T> request) {
    try {
      return request.get();
    } catch (SdkException | LocalBodyException e) {
      throw failures.classify(operation, key, e);
    }
  }

  private static RequestBody requestBody(String key, BodySource body, long length) {
    return RequestBody.fromContentProvider(
        () -> {
          try {
            return body.open();
          } catch (IOException e) {
            throw new LocalBodyException("cannot open the bytes of " + key + ": " + e, e);
          }
        },
        length,
        "application/octet-stream");
  }

  private static String base64Md5(byte[] md5) {
    if (md5 == null || md5.length != 16) {
      throw new IllegalArgumentException(
          "an MD5 has 16 bytes, got " + (md5 == null ? "none" : md5.length));
    }
    return Base64.getEncoder().encodeToString(md5);
  }

  static String unquote(String etag) {
    if (etag == null) {
      return "";
    }
    String e = etag.startsWith("W/") ? etag.substring(2) : etag;
    return e.length() >= 2 && e.startsWith("\"") && e.endsWith("\"")
        ? e.substring(1, e.length() - 1)
        : e;
  }

  private static String quote(String etag) {
    return etag.startsWith("\"") ? etag : "\"" + etag + "\"";
  }

  private static Map<String, String> lowerCaseKeys(Map<String, String> metadata) {
    Map<String, String> out = new HashMap<>();
    metadata.forEach((k, v) -> out.put(k.toLowerCase(Locale.ROOT), v));
    return out;
  }

  /** A GET's body whose read failures are classified like the call's. Not thread-safe. */
  private final class ClassifyingInputStream extends FilterInputStream {
    private final String key;

    ClassifyingInputStream(InputStream in, String key) {
      super(in);
      this.key = key;
    }

    @Override
    public int read() throws IOException {
      try {
        return super.read();
      } catch (IOException | SdkException e) {
        throw failures.classify(S3Operation.GET_OBJECT, key, e);
      }
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      try {
        return super.read(b, off, len);
      } catch (IOException | SdkException e) {
        throw failures.classify(S3Operation.GET_OBJECT, key, e);
      }
    }

    @Override
    public long skip(long n) throws IOException {
      try {
        return super.skip(n);
      } catch (IOException | SdkException e) {
        throw failures.classify(S3Operation.GET_OBJECT, key, e);
      }
    }
  }
}
