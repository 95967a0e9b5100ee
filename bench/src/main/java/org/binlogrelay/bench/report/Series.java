package org.binlogrelay.bench.report;

import java.util.ArrayList;
import java.util.List;

/**
 * A time series for a plot: seconds since the start of the run and a value. Thread-safe
 * (synchronised): one sampler adds while the report reads at the end.
 */
public final class Series {
  private final String name;
  private final List<double[]> points = new ArrayList<>();

  public Series(String name) {
    this.name = name;
  }

  public String name() {
    return name;
  }

  public synchronized void add(double seconds, double value) {
    points.add(new double[] {seconds, value});
  }

  /** A copy of the points, {@code [seconds, value]} each, in the order added. */
  public synchronized List<double[]> points() {
    List<double[]> copy = new ArrayList<>(points.size());
    for (double[] p : points) {
      copy.add(p.clone());
    }
    return copy;
  }
}
