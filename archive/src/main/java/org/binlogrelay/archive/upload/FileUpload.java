package org.binlogrelay.archive.upload;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.binlogrelay.archive.ArchivedFileRecord;
import org.binlogrelay.archive.codec.ChunkCodec;
import org.binlogrelay.archive.codec.KeyRing;
import org.binlogrelay.archive.objectstore.ObjectStore;
import org.binlogrelay.archive.objectstore.ObjectStore.ObjectInfo;
import org.binlogrelay.archive.objectstore.ObjectStore.Part;
import org.binlogrelay.archive.objectstore.ObjectStoreException;
import org.binlogrelay.archive.upload.KeyValueText.DamagedException;
import org.binlogrelay.archive.upload.UploadState.PartState;
import org.binlogrelay.archive.upload.UploadState.Phase;
import org.binlogrelay.archive.upload.UploadStep.StepHook;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves one closed binlog file towards VERIFIED, from whatever its persisted {@link UploadState}
 * and the object store say, in this order (each attempt, so a restart or a retry reconciles the
 * same way):
 *
 * <ol>
 *   <li>the metadata object exists: same SHA-256 and size as the local file, VERIFIED without
 *       sending a byte (another relay, or this one before a crash, archived it); other bytes:
 *       CONFLICT;
 *   <li>the data object exists with the local file's size and ETag (or read-back SHA-256): it is
 *       UPLOADED, go to the metadata object;
 *   <li>a multipart upload recorded: {@code listParts}; parts the server holds with the recorded
 *       ETag and the local MD5 are kept, the rest sent, then completed; a vanished upload starts
 *       over; before a new multipart upload, unfinished uploads of the key (a crash before their id
 *       was persisted) are aborted;
 *   <li>below the threshold: one PUT with Content-MD5;
 *   <li>the completed object's ETag is checked (single: hex MD5; multipart: MD5 of the part MD5s
 *       "-N"; not MD5-based: size and read-back SHA-256), then the metadata object is PUT and
 *       checked, then VERIFIED persisted.
 * </ol>
 *
 * With an encoding ({@link ChunkCodec}: zstd and/or AES-GCM), the data object is the file encoded
 * into the chunk format, staged on local disk first ({@link StagedObject}) and kept there until
 * VERIFIED, so that a resumed upload sends the same bytes (encryption nonces are random): steps 2
 * to 5 then apply to the staged object's bytes (size, MD5, part MD5s, ETag), while step 1 and the
 * state's size and SHA-256 are the binlog file's. The metadata object records the encoding, the key
 * id and the chunk offsets.
 *
 * <p>Every state is persisted after the object-store call that produced it returned, so a crash
 * between the two repeats at most a part (never a completed object: step 2 finds it). Bodies stream
 * from the file; the digests ({@link LocalDigest}) are computed once per file and kept for its
 * retries. Not thread-safe: the uploader's thread owns it.
 */
final class FileUpload {
  private static final Logger LOG = LoggerFactory.getLogger(FileUpload.class);

  /** How an attempt ended. */
  enum Result {
    /**
     * This relay completed the upload (wrote the metadata object, maybe before a crash or a lost
     * answer).
     */
    VERIFIED_SENT,
    /** The metadata object was there already with the same bytes: nothing sent. */
    VERIFIED_FOUND,
    /** The archive holds other bytes under the name. */
    CONFLICT,
    /** The uploader is stopping; the state is persisted where it stood. */
    STOPPED
  }

  /**
   * @param record the archived file's record (VERIFIED), else {@code null}
   * @param reason CONFLICT: why, else {@code null}
   */
  record Outcome(Result result, ArchivedFileRecord record, String reason) {}

  private final ObjectStore objects;
  private final UploadConfig config;
  private final java.nio.file.Path stateDir;
  private final FileRegionBody.Opener opener;
  private final StepHook hook;
  private final Time time;
  private final ObjectCheck check;
  private final ChunkCodec codec;
  private final java.nio.file.Path stagingDir;
  private String digestKey;
  private LocalDigest digest;
  private String objectDigestKey;
  private LocalDigest objectDigest;

  /**
   * What is uploaded as the data object: the file itself (identity) or its staged encoding.
   *
   * @param digest the digests of the object's bytes (for identity: the file's)
   * @param opener opens the object's bytes
   * @param staged the staged encoded object, {@code null} for identity
   */
  private record Body(LocalDigest digest, FileRegionBody.Opener opener, StagedObject staged) {}

  FileUpload(
      ObjectStore objects,
      UploadConfig config,
      java.nio.file.Path stateDir,
      FileRegionBody.Opener opener,
      StepHook hook,
      Time time) {
    this(
        objects,
        config,
        stateDir,
        opener,
        hook,
        time,
        ChunkCodec.forReading(KeyRing.none()),
        stateDir.resolveSibling("staging"));
  }

  /**
   * @param codec how the data object is encoded (identity: the file's bytes as they are)
   * @param stagingDir where encoded objects are staged until VERIFIED
   */
  FileUpload(
      ObjectStore objects,
      UploadConfig config,
      java.nio.file.Path stateDir,
      FileRegionBody.Opener opener,
      StepHook hook,
      Time time,
      ChunkCodec codec,
      java.nio.file.Path stagingDir) {
    this.codec = codec;
    this.stagingDir = stagingDir;
    this.objects = objects;
    this.config = config;
    this.stateDir = stateDir;
    this.opener = opener;
    this.hook = hook;
    this.time = time;
    this.check = new ObjectCheck(objects, config);
  }

  /**
   * One attempt at archiving {@code file}.
   *
   * @throws ObjectStoreException if an object-store call failed (the state is persisted up to the
   *     last step that succeeded)
   * @throws IOException if the local file or the state file could not be read or written
   */
  Outcome advance(FileMetadata file, BooleanSupplier stopping) throws IOException {
    String name = file.name();
    UploadState state = readState(name);
    if (state.phase() == Phase.VERIFIED) {
      return new Outcome(Result.VERIFIED_FOUND, null, null);
    }
    if (state.phase() == Phase.CONFLICT) {
      return new Outcome(Result.CONFLICT, null, state.reason());
    }
    LocalDigest d = digestOf(file, state);
    if (!state.sha256().isEmpty()
        && (state.size() != d.size() || !state.sha256().equals(d.sha256()))) {
      LOG.warn(
          "archive: the upload state of {} is for other bytes (size {}, sha256 {}; the file has"
              + " size {}, sha256 {}): starting its upload over",
          name,
          state.size(),
          state.sha256(),
          d.size(),
          d.sha256());
      abortQuietly(name, state);
      state = UploadState.queued(name);
    }

    String metaKey = ArchivedFileRecord.metaKey(config.prefix(), name);
    Optional<ObjectInfo> meta = objects.head(metaKey);
    if (meta.isPresent()) {
      return alreadyArchived(file, state, d, metaKey);
    }

    Body body = bodyOf(file, state, d);
    String dataKey = ArchivedFileRecord.dataKey(config.prefix(), name);
    Optional<ObjectInfo> data = objects.head(dataKey);
    if (data.isPresent() && check.matches(data.get(), body.digest(), dataKey)) {
      if (state.phase() != Phase.UPLOADED) {
        LOG.info(
            "archive: {} is already complete in the object store (ETag {}): writing its metadata",
            dataKey,
            data.get().etag());
        abortQuietly(name, state);
        state = persist(digested(state, d).uploaded(ObjectCheck.normalize(data.get().etag())));
        hook.reached(name, UploadStep.UPLOADED_PERSISTED);
      }
    } else {
      if (state.phase() == Phase.UPLOADED) {
        LOG.warn(
            "archive: {} was recorded as uploaded but is {} in the object store: uploading it"
                + " again",
            dataKey,
            data.isPresent() ? "different" : "missing");
        state = persist(state.queuedWith(d.size(), d.md5Hex(), d.sha256()));
      }
      state = uploadData(file, state, d, body, dataKey, stopping);
      if (state == null) {
        return new Outcome(Result.STOPPED, null, null);
      }
    }
    if (stopping.getAsBoolean()) {
      return new Outcome(Result.STOPPED, null, null);
    }
    return writeMeta(file, state, d, body, metaKey);
  }

  /**
   * The data object's bytes: the file's for identity; else the staged encoding, encoded now unless
   * a complete one for these bytes is staged already (a resumed upload sends the same bytes).
   */
  private Body bodyOf(FileMetadata file, UploadState state, LocalDigest plain) throws IOException {
    String name = file.name();
    Optional<StagedObject> staged =
        Files.isDirectory(stagingDir) ? StagedObject.load(stagingDir, name) : Optional.empty();
    if (staged.isPresent()
        && (staged.get().plainSize() != plain.size()
            || !staged.get().plainSha256().equals(plain.sha256()))) {
      LOG.warn("archive: the staged object of {} is of other bytes: encoding it again", name);
      StagedObject.delete(stagingDir, name);
      staged = Optional.empty();
    }
    if (staged.isEmpty()) {
      if (codec.encoding().identity()) {
        return new Body(plain, opener, null);
      }
      createPrivateDirectory(stagingDir);
      try (InputStream in = new FileRegionBody(opener, name, 0, plain.size()).open()) {
        staged = Optional.of(StagedObject.create(codec, in, name, plain.sha256(), stagingDir));
      }
      LOG.info(
          "archive: {} encoded {} for upload: {} bytes into {}",
          name,
          staged.get().encoding(),
          plain.size(),
          staged.get().objectSize());
    } else if (!staged.get().encoding().equals(codec.encoding().name())
        || !staged.get().keyId().equals(codec.keyId())) {
      LOG.info(
          "archive: resuming the upload of {} as staged ({}{}), not as now configured",
          name,
          staged.get().encoding(),
          staged.get().keyId().isEmpty() ? "" : ", key id " + staged.get().keyId());
    }
    StagedObject s = staged.get();
    long partSize =
        state.phase() == Phase.UPLOADING && state.partSize() > 0
            ? state.partSize()
            : LocalDigest.partSizeFor(s.objectSize(), config.multipartThreshold());
    String key = name + "/" + s.objectSize() + "/" + partSize + "/" + s.plainSha256();
    if (!key.equals(objectDigestKey) || objectDigest == null) {
      try (FileChannel channel = FileChannel.open(s.file())) {
        objectDigest = LocalDigest.of(channel, s.file().toString(), s.objectSize(), partSize);
      }
      objectDigestKey = key;
    }
    return new Body(objectDigest, n -> FileChannel.open(s.file()), s);
  }

  /** Deletes the staged object of {@code name} once its upload is VERIFIED. */
  private void unstage(String name) {
    try {
      if (Files.isDirectory(stagingDir)) {
        StagedObject.delete(stagingDir, name);
      }
    } catch (IOException e) {
      LOG.warn("archive: could not delete the staged object of {}: {}", name, e.getMessage());
    }
    objectDigestKey = null;
    objectDigest = null;
  }

  /** Deletes the staged objects of files that are not {@code pending} (called by the uploader). */
  void pruneStaging(java.util.function.Predicate<String> pending) throws IOException {
    StagedObject.prune(stagingDir, pending);
  }

  /** Bytes of staged objects on local disk. */
  long stagedBytes() {
    return StagedObject.bytes(stagingDir);
  }

  private static void createPrivateDirectory(java.nio.file.Path dir) throws IOException {
    if (Files.isDirectory(dir)) {
      return;
    }
    try {
      Files.createDirectory(
          dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    } catch (UnsupportedOperationException e) {
      Files.createDirectories(dir);
    }
  }

  private Outcome alreadyArchived(
      FileMetadata file, UploadState state, LocalDigest d, String metaKey) throws IOException {
    ArchivedFileRecord existing;
    try {
      existing = ArchivedFileRecord.decode(readAll(metaKey), metaKey, file.name());
    } catch (DamagedException e) {
      return conflict(
          state,
          "the archive's metadata object for "
              + file.name()
              + " is damaged ("
              + e.getMessage()
              + "); check what else writes under the prefix");
    }
    if (existing.sha256().equals(d.sha256()) && existing.file().size() == d.size()) {
      abortQuietly(file.name(), state);
      persist(digested(state, d).verified(existing.objectEtag(), existing.uploadedBy()));
      hook.reached(file.name(), UploadStep.VERIFIED_PERSISTED);
      unstage(file.name());
      LOG.info(
          "archive: {} is already archived (uploaded by {} at {}), same bytes: nothing sent",
          file.name(),
          existing.uploadedBy(),
          existing.uploadedAt());
      boolean ours = existing.uploadedBy().equals(config.uploadedBy());
      return new Outcome(ours ? Result.VERIFIED_SENT : Result.VERIFIED_FOUND, existing, null);
    }
    return conflict(
        state,
        metaKey
            + " describes other bytes under the same name (size "
            + existing.file().size()
            + ", sha256 "
            + existing.sha256()
            + ", uploaded by "
            + existing.uploadedBy()
            + " at "
            + existing.uploadedAt()
            + "; the local file has size "
            + d.size()
            + ", sha256 "
            + d.sha256()
            + "): two relays with different histories archive into one prefix. Give each its own"
            + " prefix, then delete "
            + UploadState.path(stateDir, file.name())
            + " and restart the relay");
  }

  private Outcome conflict(UploadState state, String reason) throws IOException {
    persist(state.conflict(reason));
    return new Outcome(Result.CONFLICT, null, reason);
  }

  /** Sends the data object; returns the UPLOADED state, or {@code null} if stopping. */
  private UploadState uploadData(
      FileMetadata file,
      UploadState state,
      LocalDigest plain,
      Body body,
      String dataKey,
      BooleanSupplier stopping)
      throws IOException {
    String name = file.name();
    LocalDigest d = body.digest();
    if (state.phase() == Phase.QUEUED) {
      state = persist(state.queuedWith(plain.size(), plain.md5Hex(), plain.sha256()));
      hook.reached(name, UploadStep.DIGESTED);
    }
    if (d.partSize() == 0) {
      if (state.phase() == Phase.UPLOADING) {
        abortQuietly(name, state);
        state = persist(state.queuedWith(plain.size(), plain.md5Hex(), plain.sha256()));
      }
      if (stopping.getAsBoolean()) {
        return null;
      }
      String etag =
          objects.put(
              dataKey,
              new FileRegionBody(body.opener(), name, 0, d.size()),
              d.size(),
              d.md5(),
              userMetadata(plain, body));
      hook.reached(name, UploadStep.OBJECT_WRITTEN);
      return completed(state, plain, d, dataKey, etag);
    }

    if (state.phase() == Phase.UPLOADING
        && (state.partSize() != d.partSize() || state.uploadId().isEmpty())) {
      abortQuietly(name, state);
      state = persist(state.queuedWith(plain.size(), plain.md5Hex(), plain.sha256()));
    }
    if (state.phase() == Phase.UPLOADING) {
      state = keepHeldParts(state, plain, d, dataKey);
    }
    if (state.phase() != Phase.UPLOADING) {
      abortUnfinished(dataKey);
      String id = objects.createMultipart(dataKey, userMetadata(plain, body));
      hook.reached(name, UploadStep.MULTIPART_CREATED);
      state = persist(state.uploading(id, d.partSize()));
      hook.reached(name, UploadStep.UPLOADING_PERSISTED);
    }
    Set<Integer> done = new HashSet<>();
    for (PartState p : state.parts()) {
      done.add(p.number());
    }
    for (int n = 1; n <= d.parts(); n++) {
      if (done.contains(n)) {
        continue;
      }
      if (stopping.getAsBoolean()) {
        return null;
      }
      String etag =
          ObjectCheck.normalize(
              objects.uploadPart(
                  dataKey,
                  state.uploadId(),
                  n,
                  new FileRegionBody(body.opener(), name, d.partOffset(n), d.partLength(n)),
                  d.partLength(n),
                  d.partMd5(n)));
      hook.reached(name, UploadStep.PART_SENT);
      if (ObjectCheck.SINGLE_MD5.matcher(etag).matches() && !etag.equals(d.partMd5Hex(n))) {
        throw new ObjectStoreException(
            ObjectStoreException.Kind.CHECKSUM,
            "part "
                + n
                + " of "
                + dataKey
                + ": the server's ETag is "
                + etag
                + ", the part's MD5 is "
                + d.partMd5Hex(n));
      }
      state = persist(state.withPart(new PartState(n, d.partMd5Hex(n), etag)));
      hook.reached(name, UploadStep.PART_PERSISTED);
    }
    List<Part> parts = state.parts().stream().map(p -> new Part(p.number(), p.etag(), 0)).toList();
    String etag = objects.completeMultipart(dataKey, state.uploadId(), parts);
    hook.reached(name, UploadStep.OBJECT_WRITTEN);
    return completed(state, plain, d, dataKey, etag);
  }

  /** The recorded parts the server still holds unchanged; QUEUED if the upload vanished. */
  private UploadState keepHeldParts(
      UploadState state, LocalDigest plain, LocalDigest d, String dataKey) throws IOException {
    List<Part> held;
    try {
      held = objects.listParts(dataKey, state.uploadId());
    } catch (ObjectStoreException e) {
      if (e.kind() != ObjectStoreException.Kind.NOT_FOUND) {
        throw e;
      }
      LOG.info(
          "archive: the multipart upload of {} recorded in {} is gone ({}): starting over",
          dataKey,
          UploadState.path(stateDir, state.name()),
          e.getMessage());
      return persist(state.queuedWith(plain.size(), plain.md5Hex(), plain.sha256()));
    }
    Map<Integer, Part> byNumber = new HashMap<>();
    for (Part p : held) {
      byNumber.put(p.number(), p);
    }
    List<PartState> keep =
        state.parts().stream()
            .filter(
                p -> {
                  Part server = byNumber.get(p.number());
                  return p.number() <= d.parts()
                      && server != null
                      && ObjectCheck.normalize(server.etag()).equals(p.etag())
                      && p.md5().equals(d.partMd5Hex(p.number()))
                      && (server.size() == 0 || server.size() == d.partLength(p.number()));
                })
            .toList();
    if (keep.size() != state.parts().size()) {
      LOG.info(
          "archive: resuming {}: the server holds {} of the {} parts recorded; sending the rest",
          dataKey,
          keep.size(),
          state.parts().size());
      return persist(state.withParts(keep));
    }
    return state;
  }

  /** Checks the completed object and persists UPLOADED; a mismatch starts the upload over. */
  private UploadState completed(
      UploadState state, LocalDigest plain, LocalDigest d, String dataKey, String etag)
      throws IOException {
    ObjectInfo info =
        objects
            .head(dataKey)
            .orElseThrow(
                () ->
                    new ObjectStoreException(
                        ObjectStoreException.Kind.NOT_FOUND,
                        dataKey + " is missing right after it was written (ETag " + etag + ")"));
    if (!check.matches(info, d, dataKey)) {
      persist(state.queuedWith(plain.size(), plain.md5Hex(), plain.sha256()));
      throw new ObjectStoreException(
          ObjectStoreException.Kind.CHECKSUM,
          dataKey
              + " does not match the local file after its upload: size "
              + info.size()
              + " and ETag "
              + info.etag()
              + ", expected size "
              + d.size()
              + " and ETag "
              + d.expectedEtag()
              + "; uploading it again");
    }
    UploadState uploaded = persist(state.uploaded(ObjectCheck.normalize(info.etag())));
    hook.reached(state.name(), UploadStep.UPLOADED_PERSISTED);
    return uploaded;
  }

  private Outcome writeMeta(
      FileMetadata file, UploadState state, LocalDigest plain, Body body, String metaKey)
      throws IOException {
    LocalDigest d = body.digest();
    String etag = state.objectEtag();
    int parts = ObjectCheck.partsOf(etag);
    long partSize =
        parts == 0 ? 0 : parts == d.parts() ? d.partSize() : (d.size() + parts - 1) / parts;
    StagedObject staged = body.staged();
    ArchivedFileRecord record =
        new ArchivedFileRecord(
            file,
            plain.sha256(),
            staged == null ? ArchivedFileRecord.IDENTITY : staged.encoding(),
            d.size(),
            etag,
            partSize,
            parts,
            Instant.ofEpochMilli(time.milliseconds()),
            config.uploadedBy(),
            staged == null ? "" : staged.keyId(),
            staged == null ? 0 : staged.chunkSize(),
            staged == null ? List.of() : staged.chunkOffsets());
    byte[] bytes = record.encode();
    byte[] md5 = LocalDigest.digest("MD5").digest(bytes);
    objects.put(metaKey, () -> new ByteArrayInputStream(bytes), bytes.length, md5, Map.of());
    hook.reached(file.name(), UploadStep.META_WRITTEN);
    ObjectInfo info =
        objects
            .head(metaKey)
            .orElseThrow(
                () ->
                    new ObjectStoreException(
                        ObjectStoreException.Kind.NOT_FOUND,
                        metaKey + " is missing right after it was written"));
    String metaEtag = ObjectCheck.normalize(info.etag());
    if (info.size() != bytes.length
        || (ObjectCheck.SINGLE_MD5.matcher(metaEtag).matches()
            && !metaEtag.equals(LocalDigest.hex(md5)))) {
      throw new ObjectStoreException(
          ObjectStoreException.Kind.CHECKSUM,
          metaKey
              + " does not hold what was written: size "
              + info.size()
              + ", ETag "
              + metaEtag
              + "; expected "
              + bytes.length
              + " bytes with MD5 "
              + LocalDigest.hex(md5));
    }
    persist(state.verified(etag, config.uploadedBy()));
    hook.reached(file.name(), UploadStep.VERIFIED_PERSISTED);
    unstage(file.name());
    return new Outcome(Result.VERIFIED_SENT, record, null);
  }

  private byte[] readAll(String key) throws IOException {
    try (InputStream in = objects.get(key, 0, -1)) {
      byte[] bytes = in.readNBytes(1 << 20);
      if (in.read() >= 0) {
        throw new ObjectStoreException(
            ObjectStoreException.Kind.REJECTED,
            key + " is larger than 1 MiB: not a metadata object");
      }
      return bytes;
    }
  }

  /** Aborts the unfinished multipart uploads of exactly {@code key} (left by a crash). */
  private void abortUnfinished(String key) {
    for (ObjectStore.PendingUpload p : objects.listMultipartUploads(key)) {
      if (p.key().equals(key)) {
        LOG.info("archive: aborting an unfinished multipart upload {} of {}", p.uploadId(), key);
        objects.abortMultipart(key, p.uploadId());
      }
    }
  }

  private void abortQuietly(String name, UploadState state) {
    if (state.phase() == Phase.UPLOADING && !state.uploadId().isEmpty()) {
      String key = ArchivedFileRecord.dataKey(config.prefix(), name);
      try {
        objects.abortMultipart(key, state.uploadId());
      } catch (ObjectStoreException e) {
        LOG.warn(
            "archive: could not abort multipart upload {} of {} ({}); a bucket lifecycle rule"
                + " (AbortIncompleteMultipartUpload) removes it",
            state.uploadId(),
            key,
            e.getMessage());
      }
    }
  }

  private LocalDigest digestOf(FileMetadata file, UploadState state) throws IOException {
    long partSize =
        state.phase() == Phase.UPLOADING && state.partSize() > 0
            ? state.partSize()
            : LocalDigest.partSizeFor(file.size(), config.multipartThreshold());
    String key = file.name() + "/" + file.size() + "/" + partSize;
    if (!key.equals(digestKey)) {
      try (FileChannel channel = opener.open(file.name())) {
        digest = LocalDigest.of(channel, file.name(), file.size(), partSize);
      }
      digestKey = key;
    }
    return digest;
  }

  private UploadState readState(String name) throws IOException {
    try {
      return UploadState.read(stateDir, name);
    } catch (DamagedException e) {
      LOG.warn(
          "archive: {}; reconciling {} with the object store from scratch", e.getMessage(), name);
      return UploadState.queued(name);
    }
  }

  private UploadState persist(UploadState state) throws IOException {
    state.write(stateDir);
    return state;
  }

  private static UploadState digested(UploadState state, LocalDigest d) {
    return state.phase() == Phase.QUEUED && state.sha256().isEmpty()
        ? state.queuedWith(d.size(), d.md5Hex(), d.sha256())
        : state;
  }

  /** The data object's user metadata: the file's SHA-256 and size, the encoding, the key id. */
  private static Map<String, String> userMetadata(LocalDigest plain, Body body) {
    Map<String, String> m = new java.util.LinkedHashMap<>();
    m.put("sha256", plain.sha256());
    m.put("size", Long.toString(plain.size()));
    m.put(
        "encoding", body.staged() == null ? ArchivedFileRecord.IDENTITY : body.staged().encoding());
    if (body.staged() != null && !body.staged().keyId().isEmpty()) {
      m.put("key-id", body.staged().keyId());
    }
    return m;
  }
}
