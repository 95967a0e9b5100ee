package org.binlogrelay.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ReportTest {

  @Test
  void percentilesAreNearestRank() {
    Distribution d = new Distribution();
    for (int i = 100; i >= 1; i--) {
      d.add(i);
    }
    assertThat(d.percentile(50)).isEqualTo(50);
    assertThat(d.percentile(99)).isEqualTo(99);
    assertThat(d.percentile(100)).isEqualTo(100);
    assertThat(d.max()).isEqualTo(100);
    assertThat(d.mean()).isEqualTo(50.5);
    assertThat(new Distribution().percentile(99)).isZero();
  }

  @Test
  void rendersMarkdownJsonAndSvg() {
    Series s = new Series("MB/s");
    s.add(0.1, 10);
    s.add(0.2, 250);
    Report r =
        new Report("catchup", "catchup \"x\" <y>")
            .figure("mb_per_s", "throughput", 1234.5, "MB/s")
            .figure("events", "events", 5009L, "")
            .figure("end", "ended by", "EOF", "")
            .table(
                "files", "files", List.of("file", "whole"), List.of(List.of("binlog.000001", true)))
            .note("a\nnote")
            .plot("throughput", "MB/s", List.of(s));
    assertThat(r.markdown())
        .contains(
            "| throughput | 1,235 MB/s |",
            "| events | 5,009 |",
            "| binlog.000001 | true |",
            "- a\nnote");
    assertThat(r.json())
        .isEqualTo(
            "{\"benchmark\":\"catchup\",\"title\":\"catchup \\\"x\\\" <y>\",\"figures\":"
                + "{\"mb_per_s\":1234.5,\"events\":5009,\"end\":\"EOF\"},\"units\":{\"mb_per_s\":\"MB/s\"},\"files\":"
                + "[{\"file\":\"binlog.000001\",\"whole\":true}],\"notes\":[\"a\\nnote\"],\"series\":{\"MB/s\":[[0.1,10.0],"
                + "[0.2,250.0]]}}");
    String svg = r.svg();
    assertThat(svg)
        .startsWith("<?xml")
        .contains("<polyline", "catchup &quot;x&quot; &lt;y&gt;")
        .endsWith("</svg>\n");
    assertThat(SvgPlot.niceCeiling(250)).isEqualTo(500);
    assertThat(SvgPlot.niceCeiling(0)).isEqualTo(1);
  }
}
