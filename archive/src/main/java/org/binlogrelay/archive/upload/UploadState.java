package org.binlogrelay.archive.upload;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.binlogrelay.archive.upload.KeyValueText.DamagedException;
import org.binlogrelay.storage.BinlogFileName;

/**
 * Where the upload of one closed binlog file stands, persisted as {@code
 * <data-dir>/archive/uploads/<name>.state} so that a restart resumes it instead of starting over.
 * No state file means {@link Phase#QUEUED} with nothing known yet. The phases:
 *
 * <pre>
 *   QUEUED ──► UPLOADING{uploadId, partSize, parts[n, md5, etag]} ──► UPLOADED{etag} ──► VERIFIED
 *     │  ▲            │ (part by part)                                    │
 *     │  └────────────┴──────────── start over ◄────────────────────────────┘
 *     └──► UPLOADED (single PUT) │ VERIFIED (already in the archive) │ CONFLICT (from any but VERIFIED)
 * </pre>
 *
 * {@link Phase#VERIFIED} (data object verified, metadata object written and checked) and {@link
 * Phase#CONFLICT} (the archive holds other bytes under this name) are terminal; {@link
 * Phase#canMoveTo} is the one place that says which moves are allowed, and every {@code with*}
 * method goes through it. File format: {@link KeyValueText} with header {@code binlog-relay-upload
 * 1} and the fields {@code name, phase, size, md5, sha256, upload_id, part_size, parts (n:md5:etag,
 * comma separated), object_etag, uploaded_by, reason}; written atomically (temporary file, force,
 * rename, directory force). Immutable; the static methods are thread-safe.
 *
 * @param name the binlog file
 * @param phase where the upload stands
 * @param size the file's length (0 while QUEUED without a digest)
 * @param md5 the file's MD5, hex ("" until known)
 * @param sha256 the file's SHA-256, hex ("" until known)
 * @param uploadId the multipart upload, "" if none
 * @param partSize the multipart part size, 0 if none
 * @param parts the parts uploaded so far, by ascending number
 * @param objectEtag the data object's ETag once UPLOADED or VERIFIED, else ""
 * @param uploadedBy VERIFIED: the relay that uploaded it (this one or another); else ""
 * @param reason CONFLICT: why; else ""
 */
public record UploadState(
    String name,
    Phase phase,
    long size,
    String md5,
    String sha256,
    String uploadId,
    long partSize,
    List<PartState> parts,
    String objectEtag,
    String uploadedBy,
    String reason) {

  static final String HEADER = "binlog-relay-upload 1";
  static final String SUFFIX = ".state";
  private static final String TEMP_SUFFIX = ".tmp";

  /** The phases of an upload (class comment). */
  public enum Phase {
    QUEUED,
    UPLOADING,
    UPLOADED,
    VERIFIED,
    CONFLICT;

    /** Whether an upload in this phase may move to {@code next}. */
    public boolean canMoveTo(Phase next) {
      return switch (this) {
        case QUEUED, UPLOADING -> true;
        case UPLOADED -> next == QUEUED || next == VERIFIED || next == CONFLICT;
        case VERIFIED, CONFLICT -> false;
      };
    }
  }

  /** One uploaded part: its number (1-based), its MD5 (hex) and the ETag the server returned. */
  public record PartState(int number, String md5, String etag) {
    public PartState {
      if (number < 1 || md5.isEmpty() || etag.isEmpty()) {
        throw new IllegalArgumentException("bad part " + number + " md5 " + md5 + " etag " + etag);
      }
      if (etag.indexOf(':') >= 0 || etag.indexOf(',') >= 0) {
        throw new IllegalArgumentException("part " + number + ": ETag '" + etag + "' has : or ,");
      }
    }
  }

  public UploadState {
    BinlogFileName.require(name, "file name");
    Objects.requireNonNull(phase, "phase");
    parts = List.copyOf(parts);
    for (int i = 1; i < parts.size(); i++) {
      if (parts.get(i).number() <= parts.get(i - 1).number()) {
        throw new IllegalArgumentException(name + ": parts out of order: " + parts);
      }
    }
  }

  /** A file with nothing done yet. */
  public static UploadState queued(String name) {
    return new UploadState(name, Phase.QUEUED, 0, "", "", "", 0, List.of(), "", "", "");
  }

  /** Queued with the file's digest known (a fresh start: any upload forgotten). */
  public UploadState queuedWith(long fileSize, String fileMd5, String fileSha256) {
    return move(Phase.QUEUED, fileSize, fileMd5, fileSha256, "", 0, List.of(), "", "", "");
  }

  /** A multipart upload started. */
  public UploadState uploading(String id, long bytesPerPart) {
    return move(Phase.UPLOADING, size, md5, sha256, id, bytesPerPart, List.of(), "", "", "");
  }

  /** One more part uploaded (replacing an earlier record of the same number). */
  public UploadState withPart(PartState part) {
    if (phase != Phase.UPLOADING) {
      throw new IllegalStateException(name + ": a part recorded in phase " + phase);
    }
    List<PartState> next = new ArrayList<>(parts.size() + 1);
    for (PartState p : parts) {
      if (p.number() != part.number()) {
        next.add(p);
      }
    }
    next.add(part);
    next.sort((a, b) -> Integer.compare(a.number(), b.number()));
    return move(Phase.UPLOADING, size, md5, sha256, uploadId, partSize, next, "", "", "");
  }

  /** Only the parts in {@code keep} (those the server still holds). */
  public UploadState withParts(List<PartState> keep) {
    return move(Phase.UPLOADING, size, md5, sha256, uploadId, partSize, keep, "", "", "");
  }

  /** The data object is complete with {@code etag}. */
  public UploadState uploaded(String etag) {
    return move(Phase.UPLOADED, size, md5, sha256, "", partSize, List.of(), etag, "", "");
  }

  /** Archived: the metadata object is written and checked. */
  public UploadState verified(String etag, String by) {
    return move(Phase.VERIFIED, size, md5, sha256, "", partSize, List.of(), etag, by, "");
  }

  /** The archive holds other bytes under this name. */
  public UploadState conflict(String why) {
    return move(Phase.CONFLICT, size, md5, sha256, uploadId, partSize, parts, objectEtag, "", why);
  }

  private UploadState move(
      Phase to,
      long newSize,
      String newMd5,
      String newSha256,
      String newUploadId,
      long newPartSize,
      List<PartState> newParts,
      String etag,
      String by,
      String why) {
    if (!phase.canMoveTo(to)) {
      throw new IllegalStateException(name + ": an upload cannot move from " + phase + " to " + to);
    }
    return new UploadState(
        name, to, newSize, newMd5, newSha256, newUploadId, newPartSize, newParts, etag, by, why);
  }

  /** The state file's bytes. */
  public byte[] encode() {
    Map<String, String> f = new LinkedHashMap<>();
    f.put("name", name);
    f.put("phase", phase.name());
    f.put("size", Long.toString(size));
    f.put("md5", md5);
    f.put("sha256", sha256);
    f.put("upload_id", uploadId);
    f.put("part_size", Long.toString(partSize));
    StringBuilder p = new StringBuilder();
    for (PartState part : parts) {
      if (p.length() > 0) {
        p.append(',');
      }
      p.append(part.number()).append(':').append(part.md5()).append(':').append(part.etag());
    }
    f.put("parts", p.toString());
    f.put("object_etag", objectEtag);
    f.put("uploaded_by", uploadedBy);
    f.put("reason", reason);
    return KeyValueText.encode(HEADER, f);
  }

  /** Parses a state file of {@code expectedName}. */
  public static UploadState decode(byte[] content, String where, String expectedName)
      throws DamagedException {
    Map<String, String> f = KeyValueText.decode(content, HEADER, where);
    String name = KeyValueText.field(f, "name", where);
    if (!name.equals(expectedName)) {
      throw new DamagedException(where + ": describes " + name + ", not " + expectedName);
    }
    try {
      List<PartState> parts = new ArrayList<>();
      String partsText = KeyValueText.field(f, "parts", where);
      if (!partsText.isEmpty()) {
        for (String item : partsText.split(",", -1)) {
          String[] three = item.split(":", -1);
          if (three.length != 3) {
            throw new DamagedException(where + ": malformed part '" + item + "'");
          }
          parts.add(new PartState(Integer.parseInt(three[0]), three[1], three[2]));
        }
      }
      return new UploadState(
          name,
          Phase.valueOf(KeyValueText.field(f, "phase", where)),
          KeyValueText.longField(f, "size", where),
          KeyValueText.field(f, "md5", where),
          KeyValueText.field(f, "sha256", where),
          KeyValueText.field(f, "upload_id", where),
          KeyValueText.longField(f, "part_size", where),
          parts,
          KeyValueText.field(f, "object_etag", where),
          KeyValueText.field(f, "uploaded_by", where),
          KeyValueText.field(f, "reason", where));
    } catch (IllegalArgumentException e) {
      throw new DamagedException(where + ": " + e.getMessage());
    }
  }

  /** The state file of {@code name} in {@code dir}. */
  public static Path path(Path dir, String name) {
    return dir.resolve(name + SUFFIX);
  }

  /**
   * The persisted state of {@code name}, {@link #queued} if it has none.
   *
   * @throws DamagedException if the file exists but cannot be trusted
   */
  public static UploadState read(Path dir, String name) throws IOException, DamagedException {
    Path p = path(dir, name);
    byte[] content;
    try {
      content = Files.readAllBytes(p);
    } catch (NoSuchFileException e) {
      return queued(name);
    }
    return decode(content, p.toString(), name);
  }

  /**
   * Writes this state atomically: temporary file, force, rename over the old one, force the dir.
   */
  public void write(Path dir) throws IOException {
    Path target = path(dir, name);
    Path temp = dir.resolve(name + SUFFIX + TEMP_SUFFIX);
    try {
      try (FileChannel out =
          FileChannel.open(
              temp,
              StandardOpenOption.CREATE,
              StandardOpenOption.WRITE,
              StandardOpenOption.TRUNCATE_EXISTING)) {
        ByteBuffer buf = ByteBuffer.wrap(encode());
        while (buf.hasRemaining()) {
          out.write(buf);
        }
        out.force(true);
      }
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException | RuntimeException e) {
      try {
        Files.deleteIfExists(temp);
      } catch (IOException deleteFailed) {
        e.addSuppressed(deleteFailed);
      }
      throw e;
    }
    forceDirectory(dir);
  }

  /** Forces a directory's entries to disk (a rename or a delete in it). */
  static void forceDirectory(Path dir) throws IOException {
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    }
  }
}
