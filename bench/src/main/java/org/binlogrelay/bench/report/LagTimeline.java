package org.binlogrelay.bench.report;

import java.util.ArrayList;
import java.util.List;

/**
 * Lag samples filed by the second of the measurement they were taken in, to tell a lag that holds
 * steady from one that grows: per-second percentiles, and the growth as the least-squares slope of
 * the per-second medians. Samples before the start or after the last second are left out.
 * Thread-safe.
 */
public final class LagTimeline {
  private final long startNanos;
  private final Distribution[] seconds;

  /**
   * @param startNanos {@link System#nanoTime()} at the start of the measurement
   * @param length how many seconds it lasts (at least 1)
   */
  public LagTimeline(long startNanos, int length) {
    if (length < 1) {
      throw new IllegalArgumentException("a timeline of " + length + " seconds");
    }
    this.startNanos = startNanos;
    this.seconds = new Distribution[length];
    for (int i = 0; i < length; i++) {
      seconds[i] = new Distribution();
    }
  }

  /** One sample of {@code lagMicros}, taken at {@code nowNanos}. */
  public void add(long nowNanos, long lagMicros) {
    long second = (nowNanos - startNanos) / 1_000_000_000L;
    if (nowNanos < startNanos || second >= seconds.length) {
      return;
    }
    Distribution d = seconds[(int) second];
    synchronized (d) {
      d.add(lagMicros);
    }
  }

  /**
   * The {@code p}th percentile of each second that has samples, in milliseconds, at the second's
   * middle.
   */
  public Series percentiles(String name, double p) {
    Series series = new Series(name);
    for (double[] point : points(p)) {
      series.add(point[0], point[1]);
    }
    return series;
  }

  /**
   * How fast the median lag grew, in milliseconds per second: the least-squares slope of the
   * per-second medians (0 with fewer than two seconds of samples). Steady lag is about 0; a client
   * falling behind shows a positive slope.
   */
  public double growthMillisPerSecond() {
    List<double[]> points = points(50);
    int n = points.size();
    if (n < 2) {
      return 0;
    }
    double sx = 0;
    double sy = 0;
    for (double[] p : points) {
      sx += p[0];
      sy += p[1];
    }
    double mx = sx / n;
    double my = sy / n;
    double num = 0;
    double den = 0;
    for (double[] p : points) {
      num += (p[0] - mx) * (p[1] - my);
      den += (p[0] - mx) * (p[0] - mx);
    }
    return den == 0 ? 0 : num / den;
  }

  /** The median lag (ms) of the samples in the seconds {@code [from, to)} of the measurement. */
  public double medianMillis(int from, int to) {
    Distribution all = new Distribution();
    for (int i = Math.max(0, from); i < Math.min(to, seconds.length); i++) {
      synchronized (seconds[i]) {
        all.addAll(seconds[i]);
      }
    }
    return all.percentile(50) / 1000.0;
  }

  /** The length in seconds. */
  public int length() {
    return seconds.length;
  }

  private List<double[]> points(double p) {
    List<double[]> points = new ArrayList<>();
    for (int i = 0; i < seconds.length; i++) {
      synchronized (seconds[i]) {
        if (seconds[i].count() > 0) {
          points.add(new double[] {i + 0.5, seconds[i].percentile(p) / 1000.0});
        }
      }
    }
    return points;
  }
}
