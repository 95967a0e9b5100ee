package org.binlogrelay.cli;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code relayctl archive}: {@code GET /api/v1/archive}, the relay's archive of binlog files in
 * object storage: the uploader's state and backlog, what the archive holds, the fetch cache, and
 * the last failure with what to do about it. A relay without an archive answers 409, printed as the
 * relay's error.
 */
@Command(
    name = "archive",
    description = {
      "Shows the relay's archive (--archive): upload state and backlog, the archived",
      "files, the fetch cache, and the last failure with what to do about it."
    },
    footer = {
      "",
      "Examples:",
      "  relayctl archive",
      "  relayctl archive --json | jq .oldestPendingAgeSeconds"
    })
final class ArchiveCommand extends RelayCommand {
  @Mixin JsonOption json;

  @Override
  public Integer call() {
    JsonNode archive = client().get("/api/v1/archive");
    if (json.json) {
      return printJson(archive);
    }
    AdminObjects.ArchiveObject a = AdminObjects.of(archive, AdminObjects.ArchiveObject.class);
    Description d = new Description();
    d.section("Archive")
        .field("Location", HumanUnits.text(a.location()))
        .field("Objects", objects(a))
        .field("State", state(a))
        .field("Pending", pending(a))
        .field(
            "Uploaded",
            HumanUnits.count(a.uploadedFiles())
                + " files ("
                + HumanUnits.bytes(a.uploadedBytes())
                + ") since the start")
        .field("Archived", archived(a))
        .field("Cache", HumanUnits.bytes(a.cacheBytes()))
        .field(
            "Fetched",
            HumanUnits.count(a.fetches())
                + " files ("
                + HumanUnits.bytes(a.fetchedBytes())
                + "), "
                + HumanUnits.count(a.fetchFailures())
                + " failed")
        .field("Deleted", HumanUnits.count(a.deletedFiles()) + " files (archive retention)");
    failure(d, a);
    return print(d.render());
  }

  /** The archive section of {@code relayctl status}: state, backlog and the last failure. */
  static void summarize(Description d, JsonNode archive) {
    AdminObjects.ArchiveObject a = AdminObjects.of(archive, AdminObjects.ArchiveObject.class);
    d.section("Archive")
        .field("Location", HumanUnits.text(a.location()))
        .field("State", state(a))
        .field("Pending", pending(a))
        .field("Archived", archived(a));
    failure(d, a);
  }

  /**
   * How new objects are written: {@code zstd:3, encrypted (AES-256-GCM, key 2026-11), uploads at
   * most 50 MiB/s}; {@code the files' bytes (no compression, no encryption)} by default.
   */
  private static String objects(AdminObjects.ArchiveObject a) {
    String encoding = HumanUnits.known(a.encoding()) ? a.encoding().asText() : "identity";
    String compression =
        encoding.startsWith("zstd") ? encoding.replace("+aes-gcm", "") : "no compression";
    String text =
        encoding.equals("identity")
            ? "the files' bytes (no compression, no encryption)"
            : compression
                + (encoding.endsWith("aes-gcm")
                    ? ", encrypted (AES-256-GCM, key " + HumanUnits.text(a.encryptionKeyId()) + ")"
                    : ", not encrypted");
    long rate = AdminObjects.path(a.maxUploadRateBytesPerSecond()).asLong();
    return text + (rate > 0 ? ", uploads at most " + HumanUnits.bytes((double) rate) + "/s" : "");
  }

  private static String state(AdminObjects.ArchiveObject a) {
    return HumanUnits.text(a.state())
        + (HumanUnits.known(a.currentFile()) ? ", uploading " + a.currentFile().asText() : "");
  }

  private static String pending(AdminObjects.ArchiveObject a) {
    String files = HumanUnits.count(a.pendingFiles());
    return files
        + (files.equals("1") ? " file (" : " files (")
        + HumanUnits.bytes(a.pendingBytes())
        + ")"
        + (AdminObjects.path(a.pendingFiles()).asLong() > 0
            ? ", the oldest closed " + HumanUnits.seconds(a.oldestPendingAgeSeconds()) + " ago"
            : "");
  }

  private static String archived(AdminObjects.ArchiveObject a) {
    return HumanUnits.count(a.archivedFiles())
        + " files ("
        + HumanUnits.bytes(a.archivedBytes())
        + ")"
        + (HumanUnits.known(a.firstArchived())
            ? ", " + a.firstArchived().asText() + " to " + HumanUnits.text(a.lastArchived())
            : "");
  }

  private static void failure(Description d, AdminObjects.ArchiveObject a) {
    boolean deferred = "DEFERRED".equals(HumanUnits.text(a.state()));
    if (deferred && HumanUnits.known(a.advice())) {
      d.field("Waiting", a.advice().asText());
    }
    if (!HumanUnits.known(a.lastError())) {
      return;
    }
    d.field(
        "Last error",
        (HumanUnits.known(a.lastErrorKind()) ? a.lastErrorKind().asText() + ": " : "")
            + a.lastError().asText()
            + (HumanUnits.known(a.lastErrorAt())
                ? " (at " + HumanUnits.time(a.lastErrorAt()) + ")"
                : ""));
    if (HumanUnits.known(a.advice()) && !deferred) {
      d.field("Advice", a.advice().asText());
    }
    if (HumanUnits.known(a.nextAttemptAt())) {
      d.field("Next attempt", HumanUnits.time(a.nextAttemptAt()));
    }
  }
}
