package org.binlogrelay.bench.report;

import java.util.List;
import java.util.Locale;

/**
 * A line chart of time series as a standalone SVG 1.1 document: axes with five ticks each, one
 * polyline per series, a legend. Written by hand (no library): the output is plain text that any
 * browser shows. Stateless.
 */
public final class SvgPlot {
  private static final int WIDTH = 800;
  private static final int HEIGHT = 400;
  private static final int LEFT = 80;
  private static final int RIGHT = 20;
  private static final int TOP = 40;
  private static final int BOTTOM = 50;
  private static final String[] COLOURS = {
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf"
  };

  private SvgPlot() {}

  public static String render(String title, String xLabel, String yLabel, List<Series> series) {
    double maxX = 0;
    double maxY = 0;
    for (Series s : series) {
      for (double[] p : s.points()) {
        maxX = Math.max(maxX, p[0]);
        maxY = Math.max(maxY, p[1]);
      }
    }
    maxX = niceCeiling(maxX);
    maxY = niceCeiling(maxY);
    int plotW = WIDTH - LEFT - RIGHT;
    int plotH = HEIGHT - TOP - BOTTOM;
    StringBuilder svg = new StringBuilder();
    svg.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        .append("<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"")
        .append(WIDTH)
        .append("\" height=\"")
        .append(HEIGHT)
        .append("\" font-family=\"sans-serif\" font-size=\"12\">\n")
        .append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n")
        .append(text(WIDTH / 2.0, 20, "middle", escape(title), 14));
    svg.append(
        String.format(
            Locale.ROOT,
            "<path d=\"M%d %d V%d H%d\" stroke=\"black\" fill=\"none\"/>%n",
            LEFT,
            TOP,
            TOP + plotH,
            LEFT + plotW));
    for (int i = 0; i <= 5; i++) {
      double x = LEFT + plotW * i / 5.0;
      double y = TOP + plotH - plotH * i / 5.0;
      svg.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>%n",
              x,
              TOP,
              x,
              TOP + plotH));
      svg.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>%n",
              LEFT,
              y,
              LEFT + plotW,
              y));
      svg.append(text(x, TOP + plotH + 16, "middle", label(maxX * i / 5), 12));
      svg.append(text(LEFT - 6, y + 4, "end", label(maxY * i / 5), 12));
    }
    svg.append(text(LEFT + plotW / 2.0, HEIGHT - 12, "middle", escape(xLabel), 12));
    svg.append(
        String.format(
            Locale.ROOT,
            "<text x=\"16\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 16 "
                + "%.1f)\">%s</text>%n",
            TOP + plotH / 2.0,
            TOP + plotH / 2.0,
            escape(yLabel)));
    for (int i = 0; i < series.size(); i++) {
      String colour = COLOURS[i % COLOURS.length];
      StringBuilder points = new StringBuilder();
      for (double[] p : series.get(i).points()) {
        double x = LEFT + (maxX == 0 ? 0 : p[0] / maxX * plotW);
        double y = TOP + plotH - (maxY == 0 ? 0 : p[1] / maxY * plotH);
        points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
      }
      svg.append("<polyline fill=\"none\" stroke=\"")
          .append(colour)
          .append("\" stroke-width=\"1.5\" points=\"")
          .append(points.toString().trim())
          .append("\"/>\n");
      if (series.size() <= COLOURS.length) {
        double ly = TOP + 14 + 16 * i;
        svg.append(
            String.format(
                Locale.ROOT,
                "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\" "
                    + "stroke-width=\"3\"/>%n",
                LEFT + plotW - 150,
                ly - 4,
                LEFT + plotW - 130,
                ly - 4,
                colour));
        svg.append(text(LEFT + plotW - 125, ly, "start", escape(series.get(i).name()), 12));
      }
    }
    return svg.append("</svg>\n").toString();
  }

  /** 1, 2 or 5 times a power of ten, at least {@code v}; 1 for zero. */
  static double niceCeiling(double v) {
    if (v <= 0) {
      return 1;
    }
    double p = Math.pow(10, Math.floor(Math.log10(v)));
    for (double m : new double[] {1, 2, 5, 10}) {
      if (m * p >= v) {
        return m * p;
      }
    }
    return 10 * p;
  }

  private static String label(double v) {
    return v == Math.rint(v) && Math.abs(v) < 1e12
        ? String.format(Locale.ROOT, "%d", (long) v)
        : String.format(Locale.ROOT, "%.2f", v);
  }

  private static String text(double x, double y, String anchor, String body, int size) {
    return String.format(
        Locale.ROOT,
        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%d\">%s</text>%n",
        x,
        y,
        anchor,
        size,
        body);
  }

  static String escape(String s) {
    return s.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\"", "&quot;");
  }
}
