package org.binlogrelay.storage.retention;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.binlogrelay.storage.tier.ArchiveGate;

/**
 * Test side: an {@link ArchiveGate} whose archived files are the names the test adds. Thread-safe.
 */
final class ArchivedFiles implements ArchiveGate {
  private final Set<String> archived = ConcurrentHashMap.newKeySet();

  ArchivedFiles(String... names) {
    archived.addAll(List.of(names));
  }

  ArchivedFiles add(String... names) {
    archived.addAll(List.of(names));
    return this;
  }

  @Override
  public boolean enabled() {
    return true;
  }

  @Override
  public boolean archived(String fileName) {
    return archived.contains(fileName);
  }

  /** A gate that is off and fails if asked which files are archived. */
  static ArchiveGate disabledAndNeverAsked() {
    return new ArchiveGate() {
      @Override
      public boolean enabled() {
        return false;
      }

      @Override
      public boolean archived(String fileName) {
        throw new AssertionError("a disabled gate was asked about " + fileName);
      }
    };
  }
}
