package org.binlogrelay.archive.upload;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.binlogrelay.archive.objectstore.ObjectStore;
import org.binlogrelay.archive.objectstore.ObjectStoreException;
import org.binlogrelay.archive.objectstore.ObjectStoreException.Kind;

/**
 * Test side: a real {@link ObjectStore} over a local directory, with S3's semantics where the
 * uploader depends on them: a PUT or a multipart completion replaces an object atomically; the
 * body's Content-MD5 is checked (BadDigest as {@link Kind#CHECKSUM}); ETags are the hex MD5 of a
 * single PUT and the MD5 of the part MD5s with "-N" for a multipart object (or opaque, {@link
 * #opaqueEtags}); a completed or aborted upload is gone ({@link Kind#NOT_FOUND}). Layout: {@code
 * objects/<key>} and {@code objects/<key>.info} (ETag and user metadata), {@code uploads/<id>/}
 * (key, part files). Objects survive a new instance on the same directory; the counters and faults
 * do not.
 *
 * <p>Fault injection: {@link #failOn} throws a kind on the n-th next call of an operation, before
 * (nothing done) or after it took effect (a lost response); {@link #down} fails every call. {@link
 * #completedWrites} counts the completed object writes per key. Thread-safe (calls are serialised).
 */
final class DirectoryObjectStore implements ObjectStore {
  /** The operations, for fault injection and call counts. */
  enum Op {
    HEAD,
    PUT,
    CREATE_MULTIPART,
    UPLOAD_PART,
    LIST_PARTS,
    COMPLETE,
    ABORT,
    LIST_UPLOADS,
    GET,
    LIST,
    DELETE
  }

  private record Fault(Op op, int nth, Kind kind, boolean afterEffect) {}

  private static final HexFormat HEX = HexFormat.of();
  private static final String INFO = ".info";

  private final Path objects;
  private final Path uploads;
  private final List<Fault> faults = new ArrayList<>();
  private final Map<Op, AtomicInteger> calls = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> writes = new ConcurrentHashMap<>();
  private volatile Kind down;
  private volatile boolean opaqueEtags;
  private int pageSize = 1000;

  DirectoryObjectStore(Path root) {
    this.objects = root.resolve("objects");
    this.uploads = root.resolve("uploads");
    try {
      Files.createDirectories(objects);
      Files.createDirectories(uploads);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The {@code nth} next call of {@code op} (1: the next one) throws {@code kind}: before doing
   * anything, or after taking effect if {@code afterEffect} (the server did it, the answer was
   * lost).
   */
  synchronized DirectoryObjectStore failOn(Op op, int nth, Kind kind, boolean afterEffect) {
    faults.add(new Fault(op, calls(op) + nth, kind, afterEffect));
    return this;
  }

  /** Every call throws {@code kind} ({@code null}: back up). */
  DirectoryObjectStore down(Kind kind) {
    this.down = kind;
    return this;
  }

  /** ETags that are not MD5-based (as with SSE-KMS). */
  DirectoryObjectStore opaqueEtags(boolean opaque) {
    this.opaqueEtags = opaque;
    return this;
  }

  synchronized DirectoryObjectStore pageSize(int size) {
    this.pageSize = size;
    return this;
  }

  /** Calls of {@code op} so far (including failed ones). */
  int calls(Op op) {
    return calls.computeIfAbsent(op, o -> new AtomicInteger()).get();
  }

  /** Completed writes (PUT or multipart completion) of {@code key}. */
  int completedWrites(String key) {
    AtomicInteger n = writes.get(key);
    return n == null ? 0 : n.get();
  }

  /** Keys with more than one completed write. */
  List<String> keysWrittenMoreThanOnce() {
    return writes.entrySet().stream()
        .filter(e -> e.getValue().get() > 1)
        .map(Map.Entry::getKey)
        .sorted()
        .toList();
  }

  /** The bytes of {@code key}. */
  byte[] bytes(String key) throws IOException {
    return Files.readAllBytes(objectPath(key));
  }

  /** Stores {@code bytes} as {@code key} directly (another writer), not counted as a write. */
  synchronized void plant(String key, byte[] bytes) throws IOException {
    writeObject(key, bytes, HEX.formatHex(md5(bytes)), Map.of());
  }

  @Override
  public synchronized Optional<ObjectInfo> head(String key) {
    Fault f = enter(Op.HEAD);
    Optional<ObjectInfo> info = info(key);
    return exit(f, Op.HEAD, key, info);
  }

  @Override
  public synchronized String put(
      String key, BodySource body, long length, byte[] md5, Map<String, String> userMetadata) {
    Fault f = enter(Op.PUT);
    byte[] bytes = read(body, length, md5, key);
    String etag = opaqueEtags ? opaque() : HEX.formatHex(md5);
    writeObject(key, bytes, etag, userMetadata);
    writes.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
    return exit(f, Op.PUT, key, etag);
  }

  @Override
  public synchronized String createMultipart(String key, Map<String, String> userMetadata) {
    Fault f = enter(Op.CREATE_MULTIPART);
    String id = UUID.randomUUID().toString();
    try {
      Path dir = Files.createDirectories(uploads.resolve(id));
      Files.writeString(dir.resolve("key"), key);
      Properties p = new Properties();
      p.putAll(userMetadata);
      try (OutputStream out = Files.newOutputStream(dir.resolve("metadata"))) {
        p.store(out, null);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return exit(f, Op.CREATE_MULTIPART, key, id);
  }

  @Override
  public synchronized String uploadPart(
      String key, String uploadId, int partNumber, BodySource body, long length, byte[] md5) {
    Fault f = enter(Op.UPLOAD_PART);
    Path dir = upload(key, uploadId);
    byte[] bytes = read(body, length, md5, key + " part " + partNumber);
    try {
      Files.write(dir.resolve("part-" + partNumber), bytes);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return exit(f, Op.UPLOAD_PART, key, HEX.formatHex(md5));
  }

  @Override
  public synchronized List<Part> listParts(String key, String uploadId) {
    Fault f = enter(Op.LIST_PARTS);
    Path dir = upload(key, uploadId);
    List<Part> parts = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path p : files.filter(p -> p.getFileName().toString().startsWith("part-")).toList()) {
        byte[] bytes = Files.readAllBytes(p);
        int n = Integer.parseInt(p.getFileName().toString().substring(5));
        parts.add(new Part(n, HEX.formatHex(md5(bytes)), bytes.length));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    parts.sort(Comparator.comparingInt(Part::number));
    return exit(f, Op.LIST_PARTS, key, parts);
  }

  @Override
  public synchronized String completeMultipart(String key, String uploadId, List<Part> parts) {
    Fault f = enter(Op.COMPLETE);
    Path dir = upload(key, uploadId);
    try {
      java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
      MessageDigest ofMd5s = digest();
      int last = 0;
      for (Part part : parts) {
        if (part.number() <= last) {
          throw new ObjectStoreException(Kind.REJECTED, key + ": InvalidPartOrder");
        }
        last = part.number();
        Path p = dir.resolve("part-" + part.number());
        if (!Files.exists(p)) {
          throw new ObjectStoreException(Kind.REJECTED, key + ": InvalidPart " + part.number());
        }
        byte[] bytes = Files.readAllBytes(p);
        byte[] md5 = md5(bytes);
        if (!HEX.formatHex(md5).equals(ObjectCheck.normalize(part.etag()))) {
          throw new ObjectStoreException(
              Kind.REJECTED, key + ": InvalidPart " + part.number() + " (ETag)");
        }
        ofMd5s.update(md5);
        all.write(bytes);
      }
      Properties p = new Properties();
      try (InputStream in = Files.newInputStream(dir.resolve("metadata"))) {
        p.load(in);
      }
      Map<String, String> metadata = new HashMap<>();
      p.forEach((k, v) -> metadata.put((String) k, (String) v));
      String etag = opaqueEtags ? opaque() : HEX.formatHex(ofMd5s.digest()) + "-" + parts.size();
      writeObject(key, all.toByteArray(), etag, metadata);
      writes.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
      deleteTree(dir);
      return exit(f, Op.COMPLETE, key, etag);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public synchronized void abortMultipart(String key, String uploadId) {
    Fault f = enter(Op.ABORT);
    Path dir = uploads.resolve(uploadId);
    if (Files.isDirectory(dir)) {
      deleteTree(dir);
    }
    exit(f, Op.ABORT, key, null);
  }

  @Override
  public synchronized List<PendingUpload> listMultipartUploads(String prefix) {
    Fault f = enter(Op.LIST_UPLOADS);
    List<PendingUpload> out = new ArrayList<>();
    try (Stream<Path> dirs = Files.list(uploads)) {
      for (Path d : dirs.sorted().toList()) {
        String key = Files.readString(d.resolve("key"));
        if (key.startsWith(prefix)) {
          out.add(new PendingUpload(key, d.getFileName().toString()));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return exit(f, Op.LIST_UPLOADS, prefix, out);
  }

  /** Unfinished uploads of any key. */
  synchronized int unfinishedUploads() {
    try (Stream<Path> dirs = Files.list(uploads)) {
      return (int) dirs.count();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public synchronized InputStream get(String key, long offset, long length) {
    Fault f = enter(Op.GET);
    if (info(key).isEmpty()) {
      throw new ObjectStoreException(Kind.NOT_FOUND, "GET " + key + ": NoSuchKey");
    }
    try {
      byte[] all = Files.readAllBytes(objectPath(key));
      int from = (int) Math.min(offset, all.length);
      int to = length < 0 ? all.length : (int) Math.min(all.length, offset + length);
      return exit(f, Op.GET, key, new ByteArrayInputStream(Arrays.copyOfRange(all, from, to)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public synchronized ListPage list(String prefix, String startAfter) {
    Fault f = enter(Op.LIST);
    List<ObjectInfo> page = new ArrayList<>();
    boolean truncated = false;
    try (Stream<Path> all = Files.walk(objects)) {
      List<String> keys =
          all.filter(Files::isRegularFile)
              .map(p -> objects.relativize(p).toString())
              .filter(k -> !k.endsWith(INFO))
              .filter(k -> k.startsWith(prefix))
              .filter(k -> startAfter == null || k.compareTo(startAfter) > 0)
              .sorted()
              .toList();
      for (String k : keys) {
        if (page.size() == pageSize) {
          truncated = true;
          break;
        }
        page.add(info(k).orElseThrow());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return exit(f, Op.LIST, prefix, new ListPage(page, truncated));
  }

  @Override
  public synchronized void delete(String key) {
    Fault f = enter(Op.DELETE);
    try {
      Files.deleteIfExists(objectPath(key));
      Files.deleteIfExists(infoPath(key));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    exit(f, Op.DELETE, key, null);
  }

  @Override
  public void close() {}

  private Fault enter(Op op) {
    int n = calls.computeIfAbsent(op, o -> new AtomicInteger()).incrementAndGet();
    Kind d = down;
    if (d != null) {
      throw new ObjectStoreException(d, op + ": injected, the object store is down (" + d + ")");
    }
    for (Fault f : faults) {
      if (f.op == op && f.nth == n) {
        faults.remove(f);
        if (!f.afterEffect) {
          throw new ObjectStoreException(f.kind, op + " call " + n + ": injected " + f.kind);
        }
        return f;
      }
    }
    return null;
  }

  private static <T> T exit(Fault f, Op op, String key, T result) {
    if (f != null) {
      throw new ObjectStoreException(
          f.kind, op + " " + key + ": injected " + f.kind + " after the call took effect");
    }
    return result;
  }

  private Path upload(String key, String uploadId) {
    Path dir = uploads.resolve(uploadId);
    try {
      if (!Files.isDirectory(dir) || !Files.readString(dir.resolve("key")).equals(key)) {
        throw new ObjectStoreException(
            Kind.NOT_FOUND, key + ": NoSuchUpload " + uploadId + " (completed or aborted)");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return dir;
  }

  private Optional<ObjectInfo> info(String key) {
    Path info = infoPath(key);
    if (!Files.exists(info)) {
      return Optional.empty();
    }
    Properties p = new Properties();
    try (InputStream in = Files.newInputStream(info)) {
      p.load(in);
      long size = Files.size(objectPath(key));
      Map<String, String> metadata = new HashMap<>();
      p.forEach(
          (k, v) -> {
            if (((String) k).startsWith("meta.")) {
              metadata.put(((String) k).substring(5), (String) v);
            }
          });
      return Optional.of(new ObjectInfo(key, size, p.getProperty("etag"), metadata));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void writeObject(String key, byte[] bytes, String etag, Map<String, String> metadata) {
    try {
      Path target = objectPath(key);
      Files.createDirectories(target.getParent());
      Path tmp = target.resolveSibling(target.getFileName() + ".tmp-" + UUID.randomUUID());
      Files.write(tmp, bytes);
      Properties p = new Properties();
      p.setProperty("etag", etag);
      metadata.forEach((k, v) -> p.setProperty("meta." + k, v));
      Path infoTmp = tmp.resolveSibling(tmp.getFileName() + INFO);
      try (OutputStream out = Files.newOutputStream(infoTmp)) {
        p.store(out, null);
      }
      Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      Files.move(
          infoTmp,
          infoPath(key),
          StandardCopyOption.ATOMIC_MOVE,
          StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private byte[] read(BodySource body, long length, byte[] md5, String what) {
    byte[] bytes;
    try (InputStream in = body.open()) {
      bytes = in.readAllBytes();
    } catch (IOException e) {
      throw new ObjectStoreException(Kind.UNREACHABLE, what + ": reading the body failed", e);
    }
    if (bytes.length != length) {
      throw new ObjectStoreException(
          Kind.REJECTED,
          what + ": IncompleteBody, " + bytes.length + " bytes instead of " + length);
    }
    if (!Arrays.equals(md5(bytes), md5)) {
      throw new ObjectStoreException(Kind.CHECKSUM, what + ": BadDigest (Content-MD5)");
    }
    return bytes;
  }

  private Path objectPath(String key) {
    return objects.resolve(key);
  }

  private Path infoPath(String key) {
    return objects.resolve(key + INFO);
  }

  private static String opaque() {
    return HEX.formatHex(UUID.randomUUID().toString().getBytes(StandardCharsets.US_ASCII), 0, 20);
  }

  private static MessageDigest digest() {
    return LocalDigest.digest("MD5");
  }

  private static byte[] md5(byte[] bytes) {
    return digest().digest(bytes);
  }

  private static void deleteTree(Path dir) {
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
