package org.binlogrelay.storage.retention;

import java.util.Objects;
import org.binlogrelay.storage.tier.ArchiveGate;

/**
 * How {@link Retention} treats a second tier: which files are archived ({@link ArchiveGate}) and
 * whether a registered reader still holds archived files. Immutable.
 *
 * <p>With an archive ({@code gate.enabled()}), a file not archived is never removed locally, and,
 * by default, a reader pins only files that are not archived: an archived file can be fetched back
 * for the reader, so a slow replica no longer fills the disk. Without one ({@link #none()}), the
 * gate is never asked and retention behaves exactly as it does without tiers.
 *
 * <p>The gate is asked once per candidate file while a purge decides, with new readers held off
 * ({@link org.binlogrelay.storage.read.ReaderRegistry#whilePurging}): it must answer from memory.
 * It must also stop reporting a file archived once the archive's own retention deleted it.
 *
 * @param gate which files are archived and verified; {@link ArchiveGate#NONE} for no archive
 * @param readersPinOnlyUnarchived with an archive, a registered reader holds only the files it
 *     needs that are not archived (true, the default); false keeps every file a reader needs,
 *     archived or not, as without an archive. Ignored without an archive
 */
public record ArchiveRules(ArchiveGate gate, boolean readersPinOnlyUnarchived) {

  public ArchiveRules {
    Objects.requireNonNull(gate, "gate");
  }

  /** No archive: retention as without tiers. */
  public static ArchiveRules none() {
    return new ArchiveRules(ArchiveGate.NONE, false);
  }

  /**
   * The rules for {@code gate}: with an archive enabled, readers pin only files not archived yet.
   */
  public static ArchiveRules of(ArchiveGate gate) {
    return new ArchiveRules(gate, gate.enabled());
  }

  public ArchiveRules withReadersPinOnlyUnarchived(boolean value) {
    return new ArchiveRules(gate, value);
  }

  /** Whether an archive is configured, so that archived state matters. */
  boolean enabled() {
    return gate.enabled();
  }

  /** Whether {@code name} is archived; false without an archive (the gate is then never asked). */
  boolean archived(String name) {
    return gate.enabled() && gate.archived(name);
  }
}
