package org.binlogrelay.storage;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Event boundaries already found in stored files, so that checking a replica's file-and-position
 * start does not walk a large file's headers from offset 4 every time: a sparse list per file, one
 * boundary per {@link #SPACING} bytes or more, recorded by the walks themselves ({@code
 * PositionLookup}) and used as their starting points.
 *
 * <p>A hint is only a place to start walking: the walk checks every header from there (event size,
 * and log_pos equal to the event's end), so a stale hint fails the walk, which then starts again
 * from offset 4 ({@link #forget}). Hints belong to a file's identity (its {@code fileKey}), so a
 * file recreated under the same name starts with none. Bounded: {@link #MAX_FILES} files, least
 * recently used first out; at most one boundary per 64 KiB of each.
 *
 * <p>Thread-safe.
 */
public final class EventBoundaries {
  /** At least this many bytes between two recorded boundaries of a file. */
  public static final long SPACING = 64 << 10;

  static final int MAX_FILES = 64;

  private record Known(Object identity, long[] offsets) {}

  private final Map<String, Known> files =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Known> eldest) {
          return size() > MAX_FILES;
        }
      };

  /**
   * The largest known boundary of {@code file} at or before {@code offset}, or 4 (the first event).
   */
  public synchronized long floor(String file, Object identity, long offset) {
    Known known = files.get(file);
    if (known == null || !known.identity().equals(identity)) {
      return BinlogFileName.FIRST_EVENT_OFFSET;
    }
    int i = Arrays.binarySearch(known.offsets(), offset);
    if (i >= 0) {
      return known.offsets()[i];
    }
    int below = -i - 2;
    return below >= 0 ? known.offsets()[below] : BinlogFileName.FIRST_EVENT_OFFSET;
  }

  /**
   * Adds boundaries found by a walk of {@code file} (any order; kept at least {@link #SPACING}
   * apart).
   */
  public synchronized void record(String file, Object identity, long[] found, int count) {
    if (count == 0) {
      return;
    }
    Known known = files.get(file);
    long[] all;
    if (known == null || !known.identity().equals(identity)) {
      all = Arrays.copyOf(found, count);
    } else {
      all = Arrays.copyOf(known.offsets(), known.offsets().length + count);
      System.arraycopy(found, 0, all, known.offsets().length, count);
    }
    Arrays.sort(all);
    int kept = 0;
    for (long offset : all) {
      if (kept == 0 || offset - all[kept - 1] >= SPACING) {
        all[kept++] = offset;
      }
    }
    files.put(file, new Known(identity, Arrays.copyOf(all, kept)));
  }

  /** Drops what is known of {@code file} (a walk from a hint failed, or the file is gone). */
  public synchronized void forget(String file) {
    files.remove(file);
  }

  /** How many boundaries are known for {@code file} (for tests and status). */
  public synchronized int count(String file) {
    Known known = files.get(file);
    return known == null ? 0 : known.offsets().length;
  }
}
