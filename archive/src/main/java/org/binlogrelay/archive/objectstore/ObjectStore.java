package org.binlogrelay.archive.objectstore;

import java.io.InputStream;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The few object-storage operations the archive needs, on one bucket, with keys relative to nothing
 * (callers prepend their prefix). Every failure is an {@link ObjectStoreException} whose {@link
 * ObjectStoreException#kind()} says what went wrong and what to do; no SDK type crosses this
 * interface, so the uploader and the catalog are tested against any implementation and the S3 one
 * against a real S3-compatible server. Implementations are thread-safe; calls block (the archive
 * calls them on its own threads, never on the ingest or serving path).
 */
public interface ObjectStore extends AutoCloseable {

  /** The object's size, ETag and user metadata, or empty if there is no such object. */
  Optional<ObjectInfo> head(String key);

  /**
   * Stores {@code length} bytes from {@code body} as {@code key} in one request, sent with their
   * {@code Content-MD5} so that the server refuses a body damaged on the way.
   *
   * @param body opened anew for each attempt (the client may retry)
   * @param md5 the MD5 of the bytes (16 bytes)
   * @param userMetadata small string pairs stored with the object ({@code x-amz-meta-*})
   * @return the stored object's ETag, as the server returns it (quotes removed)
   */
  String put(
      String key, BodySource body, long length, byte[] md5, Map<String, String> userMetadata);

  /** Starts a multipart upload of {@code key}; returns its upload id. */
  String createMultipart(String key, Map<String, String> userMetadata);

  /**
   * Uploads part {@code partNumber} (1-based) of an upload, with its {@code Content-MD5}.
   *
   * @return the part's ETag (quotes removed)
   */
  String uploadPart(
      String key, String uploadId, int partNumber, BodySource body, long length, byte[] md5);

  /** The parts the server holds for an unfinished upload, by part number; empty if none. */
  List<Part> listParts(String key, String uploadId);

  /**
   * Completes an upload from its parts (in part-number order).
   *
   * @return the object's ETag (quotes removed)
   */
  String completeMultipart(String key, String uploadId, List<Part> parts);

  /** Aborts an unfinished upload; no error if it is already gone. */
  void abortMultipart(String key, String uploadId);

  /** The unfinished multipart uploads whose key starts with {@code prefix}. */
  List<PendingUpload> listMultipartUploads(String prefix);

  /**
   * Reads {@code length} bytes of {@code key} from {@code offset} (the whole object from {@code
   * offset} if {@code length < 0}). The caller closes the stream.
   */
  InputStream get(String key, long offset, long length);

  /**
   * One page of the keys under {@code prefix}, in the server's (lexicographic) order, after {@code
   * startAfter} (null: from the first).
   */
  ListPage list(String prefix, String startAfter);

  /** Deletes {@code key}; no error if it does not exist. */
  void delete(String key);

  /** Releases the client's connections. */
  @Override
  void close();

  /** Opens the bytes of a body, once per attempt. */
  @FunctionalInterface
  interface BodySource {
    InputStream open() throws java.io.IOException;
  }

  /**
   * An object's description.
   *
   * @param key the key
   * @param size its length in bytes
   * @param etag its ETag without quotes (MD5 hex for single PUTs on most servers; {@code
   *     md5-of-md5s-N} for multipart)
   * @param userMetadata its {@code x-amz-meta-*} pairs, keys in lower case without the prefix
   */
  record ObjectInfo(String key, long size, String etag, Map<String, String> userMetadata) {
    public ObjectInfo {
      userMetadata = Map.copyOf(userMetadata);
    }
  }

  /**
   * One uploaded part.
   *
   * @param number 1-based part number
   * @param etag its ETag without quotes
   * @param size its length (0 when unknown, as in what we send to complete)
   */
  record Part(int number, String etag, long size) {}

  /** An unfinished multipart upload. */
  record PendingUpload(String key, String uploadId) {}

  /**
   * A page of a listing.
   *
   * @param objects the objects of this page
   * @param truncated whether more keys follow (ask again with the last key as {@code startAfter})
   */
  record ListPage(List<ObjectInfo> objects, boolean truncated) {
    public ListPage {
      objects = List.copyOf(objects);
    }
  }
}
