package org.binlogrelay.protocol.gtid;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The transaction numbers of one (UUID, tag) pair: sorted, disjoint, non-adjacent closed intervals,
 * kept flat in one {@code long[]} as {@code start0, end0, start1, end1, ...} (ends inclusive).
 * Adding the number right after the last interval, as a replication stream does, extends that
 * interval in place in O(1); any other single add or remove is a binary search plus at most one
 * array shift; the set operations ({@link #union}, {@link #subtract}, {@link #intersection}) are
 * linear merges.
 *
 * <p>Invariant: for every i, {@code start(i) <= end(i)} and {@code end(i) + 1 < start(i + 1)}.
 * Mutable and not thread-safe; owned by one {@link MysqlGtidSet}.
 */
final class GnoIntervalList {
  /** Below this many intervals, in-place edits beat a linear merge into a fresh array. */
  private static final int SMALL = 8;

  private long[] bounds;
  private int size;

  GnoIntervalList() {
    this(new long[4], 0);
  }

  private GnoIntervalList(long[] bounds, int size) {
    this.bounds = bounds;
    this.size = size;
  }

  /** Number of intervals. */
  int intervalCount() {
    return size;
  }

  boolean isEmpty() {
    return size == 0;
  }

  long start(int i) {
    return bounds[2 * i];
  }

  long end(int i) {
    return bounds[2 * i + 1];
  }

  /** The last number of the last interval; the list must not be empty. */
  long lastEnd() {
    return bounds[2 * size - 1];
  }

  /**
   * Adds one number; false if it was already present. O(1) when it extends or follows the last
   * interval.
   */
  boolean add(long gno) {
    if (size == 0 || gno > lastEnd() + 1) {
      append(gno, gno);
      return true;
    }
    if (gno == lastEnd() + 1) {
      bounds[2 * size - 1] = gno;
      return true;
    }
    return add(gno, gno);
  }

  /** Adds the closed interval {@code [start, end]}; false if it was already covered. */
  boolean add(long start, long end) {
    int first = firstEndAtLeast(start - 1);
    int last = lastStartAtMost(end + 1);
    if (first > last) {
      splice(first, first - 1, start, end);
      return true;
    }
    long mergedStart = Math.min(start, start(first));
    long mergedEnd = Math.max(end, end(last));
    if (first == last && mergedStart == start(first) && mergedEnd == end(first)) {
      return false;
    }
    splice(first, last, mergedStart, mergedEnd);
    return true;
  }

  /** Removes the closed interval {@code [start, end]}; false if none of it was present. */
  boolean remove(long start, long end) {
    int first = firstEndAtLeast(start);
    int last = lastStartAtMost(end);
    if (first > last) {
      return false;
    }
    long keepBefore = start(first);
    long keepAfter = end(last);
    if (keepBefore < start && keepAfter > end) {
      splice(first, last, keepBefore, start - 1, end + 1, keepAfter);
    } else if (keepBefore < start) {
      splice(first, last, keepBefore, start - 1);
    } else if (keepAfter > end) {
      splice(first, last, end + 1, keepAfter);
    } else {
      splice(first, last);
    }
    return true;
  }

  /** Adds every number of {@code other} (in place; this object stays the same list). */
  void addAll(GnoIntervalList other) {
    if (other.size <= SMALL) {
      for (int i = 0; i < other.size; i++) {
        add(other.start(i), other.end(i));
      }
      return;
    }
    replaceBy(union(this, other));
  }

  /** Removes every number of {@code other} (in place). */
  void removeAll(GnoIntervalList other) {
    if (other.size <= SMALL) {
      for (int i = 0; i < other.size && size > 0; i++) {
        remove(other.start(i), other.end(i));
      }
      return;
    }
    replaceBy(subtract(this, other));
  }

  /**
   * Appends {@code [start, end]} after the last interval without merging; the caller guarantees
   * {@code start > lastEnd() + 1} (decoders check it and report bad input themselves).
   */
  void append(long start, long end) {
    assert size == 0 || start > lastEnd() + 1 : "append out of order";
    if (2 * size + 2 > bounds.length) {
      bounds = Arrays.copyOf(bounds, Math.max(4, bounds.length * 2));
    }
    bounds[2 * size] = start;
    bounds[2 * size + 1] = end;
    size++;
  }

  boolean contains(long gno) {
    int i = firstEndAtLeast(gno);
    return i < size && start(i) <= gno;
  }

  /** True if every number of {@code other} is in this list. */
  boolean containsAll(GnoIntervalList other) {
    int p = 0;
    for (int i = 0; i < other.size; i++) {
      long s = other.start(i);
      while (p < size && end(p) < s) {
        p++;
      }
      if (p == size || start(p) > s || end(p) < other.end(i)) {
        return false;
      }
    }
    return true;
  }

  /** How many numbers the list holds; cannot overflow since all lie in 1..2^63-2. */
  long count() {
    long n = 0;
    for (int i = 0; i < size; i++) {
      n += end(i) - start(i) + 1;
    }
    return n;
  }

  static GnoIntervalList union(GnoIntervalList a, GnoIntervalList b) {
    GnoIntervalList out = new GnoIntervalList(new long[2 * (a.size + b.size) + 2], 0);
    int i = 0;
    int j = 0;
    while (i < a.size || j < b.size) {
      boolean takeA = j == b.size || (i < a.size && a.start(i) <= b.start(j));
      long s = takeA ? a.start(i) : b.start(j);
      long e = takeA ? a.end(i++) : b.end(j++);
      if (out.size > 0 && s <= out.lastEnd() + 1) {
        out.bounds[2 * out.size - 1] = Math.max(out.lastEnd(), e);
      } else {
        out.append(s, e);
      }
    }
    return out;
  }

  static GnoIntervalList subtract(GnoIntervalList a, GnoIntervalList b) {
    GnoIntervalList out = new GnoIntervalList(new long[2 * (a.size + b.size) + 2], 0);
    int j = 0;
    for (int i = 0; i < a.size; i++) {
      long s = a.start(i);
      long e = a.end(i);
      while (j < b.size && b.end(j) < s) {
        j++;
      }
      int k = j;
      while (k < b.size && b.start(k) <= e) {
        if (b.start(k) > s) {
          out.append(s, b.start(k) - 1);
        }
        s = b.end(k) + 1;
        k++;
      }
      if (s <= e) {
        out.append(s, e);
      }
    }
    return out;
  }

  static GnoIntervalList intersection(GnoIntervalList a, GnoIntervalList b) {
    GnoIntervalList out = new GnoIntervalList(new long[2 * Math.min(a.size, b.size) + 4], 0);
    int i = 0;
    int j = 0;
    while (i < a.size && j < b.size) {
      long s = Math.max(a.start(i), b.start(j));
      long e = Math.min(a.end(i), b.end(j));
      if (s <= e) {
        out.append(s, e);
      }
      if (a.end(i) < b.end(j)) {
        i++;
      } else {
        j++;
      }
    }
    return out;
  }

  GnoIntervalList copy() {
    return new GnoIntervalList(Arrays.copyOf(bounds, Math.max(4, 2 * size)), size);
  }

  List<GtidInterval> intervals() {
    List<GtidInterval> out = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      out.add(new GtidInterval(start(i), end(i)));
    }
    return out;
  }

  /** Appends {@code 1-5:11-18:20} (MySQL's interval list text) to {@code sb}. */
  void appendTo(StringBuilder sb) {
    for (int i = 0; i < size; i++) {
      if (i > 0) {
        sb.append(':');
      }
      sb.append(start(i));
      if (end(i) != start(i)) {
        sb.append('-').append(end(i));
      }
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof GnoIntervalList other
        && size == other.size
        && Arrays.equals(bounds, 0, 2 * size, other.bounds, 0, 2 * size);
  }

  @Override
  public int hashCode() {
    int h = 1;
    for (int i = 0; i < 2 * size; i++) {
      h = 31 * h + Long.hashCode(bounds[i]);
    }
    return h;
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    appendTo(sb);
    return sb.toString();
  }

  private void replaceBy(GnoIntervalList other) {
    bounds = other.bounds;
    size = other.size;
  }

  /** Lowest index whose end is at least {@code x}, or {@code size}. */
  private int firstEndAtLeast(long x) {
    int lo = 0;
    int hi = size;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (end(mid) < x) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** Highest index whose start is at most {@code x}, or -1. */
  private int lastStartAtMost(long x) {
    int lo = 0;
    int hi = size;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (start(mid) <= x) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo - 1;
  }

  /**
   * Replaces intervals {@code first..last} (inclusive; empty when last < first) by {@code pairs}.
   */
  private void splice(int first, int last, long... pairs) {
    int removed = last - first + 1;
    int added = pairs.length / 2;
    int newSize = size - removed + added;
    if (2 * newSize > bounds.length) {
      bounds = Arrays.copyOf(bounds, Math.max(2 * newSize, bounds.length * 2));
    }
    System.arraycopy(bounds, 2 * (last + 1), bounds, 2 * (first + added), 2 * (size - last - 1));
    System.arraycopy(pairs, 0, bounds, 2 * first, pairs.length);
    size = newSize;
  }
}
