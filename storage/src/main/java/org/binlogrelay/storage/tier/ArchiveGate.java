package org.binlogrelay.storage.tier;

/**
 * Whether a closed binlog file is safely in the archive (uploaded and verified), asked by retention
 * before it removes a local file: with an archive configured, a file not archived is never purged
 * locally. Implementations must be thread-safe; {@link #NONE} (no archive) archives nothing and
 * gates nothing.
 */
public interface ArchiveGate {
  /** No archive configured: retention behaves as without tiers. */
  ArchiveGate NONE =
      new ArchiveGate() {
        @Override
        public boolean enabled() {
          return false;
        }

        @Override
        public boolean archived(String fileName) {
          return false;
        }
      };

  /** Whether an archive is configured at all (when false, {@link #archived} is never asked). */
  boolean enabled();

  /** Whether {@code fileName} is archived and verified, so that its local copy may be removed. */
  boolean archived(String fileName);
}
