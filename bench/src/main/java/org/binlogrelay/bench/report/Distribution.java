package org.binlogrelay.bench.report;

import java.util.Arrays;

/**
 * Samples of one quantity (e.g. lag in microseconds) and their nearest-rank percentiles. Keeps
 * every sample (a benchmark of minutes takes at most a few hundred thousand). Not thread-safe:
 * synchronise outside or give each thread its own and {@link #addAll} them.
 */
public final class Distribution {
  private long[] samples = new long[64];
  private int count;

  public void add(long sample) {
    if (count == samples.length) {
      samples = Arrays.copyOf(samples, count * 2);
    }
    samples[count++] = sample;
  }

  public void addAll(Distribution other) {
    for (int i = 0; i < other.count; i++) {
      add(other.samples[i]);
    }
  }

  public int count() {
    return count;
  }

  /** The nearest-rank percentile ({@code p} in 0..100); 0 without samples. */
  public long percentile(double p) {
    if (count == 0) {
      return 0;
    }
    long[] sorted = Arrays.copyOf(samples, count);
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(p / 100.0 * count);
    return sorted[Math.max(0, Math.min(count - 1, rank - 1))];
  }

  public long max() {
    long max = 0;
    for (int i = 0; i < count; i++) {
      max = Math.max(max, samples[i]);
    }
    return max;
  }

  public double mean() {
    if (count == 0) {
      return 0;
    }
    double sum = 0;
    for (int i = 0; i < count; i++) {
      sum += samples[i];
    }
    return sum / count;
  }
}
