package org.binlogrelay.archive.upload;

/**
 * The points of an upload where a crash leaves a distinct situation for the next start to
 * reconcile: each object-store write that returned, each state persisted. Tests stop the uploader
 * at each through a {@link StepHook} given to {@link Uploader}'s package-private constructor.
 */
enum UploadStep {
  /** QUEUED persisted with the file's size and digests. */
  DIGESTED,
  /** A multipart upload was created; its id is not persisted yet. */
  MULTIPART_CREATED,
  /** UPLOADING persisted with the upload id. */
  UPLOADING_PERSISTED,
  /** A part's ETag came back; the part is not persisted yet. */
  PART_SENT,
  /** The part is persisted. */
  PART_PERSISTED,
  /** The single PUT or the multipart completion returned; UPLOADED is not persisted yet. */
  OBJECT_WRITTEN,
  /** UPLOADED persisted. */
  UPLOADED_PERSISTED,
  /** The metadata object was written; VERIFIED is not persisted yet. */
  META_WRITTEN,
  /** VERIFIED persisted. */
  VERIFIED_PERSISTED;

  /** Called by the uploader's thread at each step (tests throw from it to simulate a crash). */
  @FunctionalInterface
  interface StepHook {
    StepHook NONE = (name, step) -> {};

    void reached(String name, UploadStep step);
  }
}
