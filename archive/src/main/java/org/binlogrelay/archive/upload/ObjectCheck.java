package org.binlogrelay.archive.upload;

import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.util.Locale;
import java.util.regex.Pattern;
import org.binlogrelay.archive.objectstore.ObjectStore;
import org.binlogrelay.archive.objectstore.ObjectStore.ObjectInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether an object in the store holds a local file's bytes, as {@link UploadConfig#verify()} says:
 * the size, then the ETag against the local MD5 (a single PUT's ETag is its hex MD5, a multipart
 * object's the MD5 of the part MD5s with "-N"); an ETag that is not MD5-based (SSE-KMS, some
 * S3-compatibles) or a multipart ETag of another part layout is settled by reading the object back
 * and comparing its SHA-256, or, if read-back is off, by the size alone (logged). {@link
 * UploadConfig.Verify#READ_BACK} always reads back. Stateless apart from its collaborators;
 * thread-safe if the store is.
 */
final class ObjectCheck {
  private static final Logger LOG = LoggerFactory.getLogger(ObjectCheck.class);
  static final Pattern SINGLE_MD5 = Pattern.compile("[0-9a-f]{32}");
  static final Pattern MULTIPART_MD5 = Pattern.compile("[0-9a-f]{32}-[0-9]+");

  private final ObjectStore objects;
  private final UploadConfig config;

  ObjectCheck(ObjectStore objects, UploadConfig config) {
    this.objects = objects;
    this.config = config;
  }

  /** Whether the stored object {@code info} holds the local file's bytes. */
  boolean matches(ObjectInfo info, LocalDigest d, String key) throws IOException {
    if (info.size() != d.size()) {
      return false;
    }
    String etag = normalize(info.etag());
    if (config.verify() == UploadConfig.Verify.READ_BACK) {
      return readBackSha256(key).equals(d.sha256());
    }
    if (SINGLE_MD5.matcher(etag).matches()) {
      return etag.equals(d.md5Hex());
    }
    if (MULTIPART_MD5.matcher(etag).matches()) {
      if (d.partSize() > 0 && etag.equals(d.expectedEtag())) {
        return true;
      }
      if (d.partSize() > 0 && partsOf(etag) == d.parts()) {
        return false;
      }
    }
    if (config.readBackOpaqueEtags()) {
      LOG.info(
          "archive: {} has ETag {}, not comparable with the local MD5: reading it back", key, etag);
      return readBackSha256(key).equals(d.sha256());
    }
    LOG.warn(
        "archive: {} has ETag {}, not comparable with the local MD5; its size matches and"
            + " read-back is off: accepted on size alone",
        key,
        etag);
    return true;
  }

  private String readBackSha256(String key) throws IOException {
    MessageDigest sha = LocalDigest.digest("SHA-256");
    byte[] buf = new byte[64 << 10];
    try (InputStream in = objects.get(key, 0, -1)) {
      int n;
      while ((n = in.read(buf)) > 0) {
        sha.update(buf, 0, n);
      }
    }
    return LocalDigest.hex(sha.digest());
  }

  /** The part count of a multipart ETag ("...-N"), 0 for others. */
  static int partsOf(String etag) {
    if (!MULTIPART_MD5.matcher(etag).matches()) {
      return 0;
    }
    try {
      return Integer.parseInt(etag.substring(etag.indexOf('-') + 1));
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  /** An ETag without quotes, in lower case. */
  static String normalize(String etag) {
    String e = etag.strip();
    if (e.length() >= 2 && e.startsWith("\"") && e.endsWith("\"")) {
      e = e.substring(1, e.length() - 1);
    }
    return e.toLowerCase(Locale.ROOT);
  }
}
